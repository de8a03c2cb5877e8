# A thesis-style bar chart: one group per data row, the simulator's bar (the mean
# over the runs, with its 95 % confidence interval as an error bar) and, when the
# paper gives a number (column 3 not NaN), the paper's bar beside it; each bar
# carries its value as text (columns 4 and 5), above the error bar. Columns:
#   group  mobisim  thesis  mobisim_label  thesis_label  mobisim_ci95  n
# Callers load figure.gp first and set title, ylabel, has_paper (1 when the paper
# gives numbers), and optionally ymin/ymax.
if (!exists("ymin")) ymin = 0
if (!exists("has_paper")) has_paper = 1
set style fill solid 0.9 border lc rgb '#333333'
stats data using ($2 + ($6 == $6 ? $6 : 0)) nooutput
top = STATS_max
n = STATS_records
if (has_paper) { stats data using 3 nooutput; top = (STATS_max > top ? STATS_max : top) }
if (!exists("ymax")) ymax = top * 1.22
set yrange [ymin:ymax]
set xrange [-0.6:n - 0.4]
set offsets 0, 0, 0, 0
set bmargin 4
dx = has_paper ? 0.19 : 0
bw = has_paper ? 0.36 : 0.5
set boxwidth bw
if (has_paper) {
	plot data using 0:(1/0):xtic(nl(strcol(1))) with points notitle, \
	     '' using ($0 - dx):2 with boxes lc rgb c_sim title 'mobisim (model, mean)', \
	     '' using ($0 - dx):2:6 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 title 'mobisim 95 % CI', \
	     '' using ($0 + dx):3 with boxes lc rgb c_paper fs pattern 2 border lc rgb '#555555' title 'thesis (measured)', \
	     '' using ($0 - dx):($2 + ($6 == $6 ? $6 : 0)):4 with labels offset 0, 0.8 notitle, \
	     '' using ($0 + dx):3:5 with labels offset 0, 0.8 tc rgb '#555555' notitle
} else {
	plot data using 0:(1/0):xtic(nl(strcol(1))) with points notitle, \
	     '' using ($0):2 with boxes lc rgb c_sim title 'mobisim (model, mean)', \
	     '' using ($0):2:6 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 title 'mobisim 95 % CI', \
	     '' using ($0):($2 + ($6 == $6 ? $6 : 0)):4 with labels offset 0, 0.8 notitle
}
