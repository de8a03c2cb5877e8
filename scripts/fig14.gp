# Thesis Figure 14 (docs/papers.md §1): the FG's total wait on writeback during
# the Photos launch, without and with the techniques. mobisim's bar is stacked by
# wait cause (writeback = wait_on_page_writeback; journal = fsync waiting on a jbd2
# commit, which waits on the BG inode's writeback in data=ordered; fsync_io = own
# sync writes); the thesis's bar is its single number (1.58 s -> 0.45 s).
# Data: out/figures/data/fig14.tsv (Figure 12's runs); columns
#   group writeback journal fsync_io thesis mobisim_label thesis_label total_ci95
# (means over the runs; the error bar is the 95 % CI of the total)
#   gnuplot -e "data='out/figures/data/fig14.tsv'; out='out/figures/fig14'; fmt='png'" scripts/fig14.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title 'Fig. 14  FG total wait on writeback during the Photos launch (4 GB BG write)'
set ylabel 'FG wait (s)'
set style fill solid 0.9 border lc rgb '#333333'
stats data using ($2 + $3 + $4) nooutput
top = STATS_max
stats data using 5 nooutput
top = (STATS_max > top ? STATS_max : top)
set yrange [0:top * 1.6]
set xrange [-0.6:1.6]
set key top right
set bmargin 4
set boxwidth 0.36
dx = 0.19
plot data using 0:(1/0):xtic(nl(strcol(1))) with points notitle, \
     '' using ($0 - dx):($2 + $3 + $4) with boxes lc rgb c_fourth title 'mobisim: fsync_io (own sync writes)', \
     '' using ($0 - dx):($2 + $3) with boxes lc rgb c_sim2 title 'mobisim: journal (commit waits on writeback)', \
     '' using ($0 - dx):2 with boxes lc rgb c_sim title 'mobisim: writeback (wait_on_page_writeback)', \
     '' using ($0 - dx):($2 + $3 + $4):8 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 title 'mobisim 95 % CI (total)', \
     '' using ($0 + dx):5 with boxes lc rgb c_paper fs pattern 2 border lc rgb '#555555' title 'thesis (measured)', \
     '' using ($0 - dx):($2 + $3 + $4 + ($8 == $8 ? $8 : 0)):6 with labels offset 0, 0.8 notitle, \
     '' using ($0 + dx):5:7 with labels offset 0, 0.8 tc rgb '#555555' notitle
