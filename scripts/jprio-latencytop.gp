# Journal priority inversion (LKML, October 2007; docs/papers.md §5): the
# LatencyTOP-style maximum wait per cause of the build's (FG) tasks in the
# kernel-build-like mix, with the journal thread best-effort (as CFQ serves it) and
# in the RT class at level 4 (the patch). docs/reproduction.md has the full table
# with averages and the thread's numbers. Data: out/figures/data/jprio-latencytop.tsv
# (configs/sweeps/lkml-jprio.yaml); columns cause baseline_max_ms jprio_max_ms
# baseline_ci95 jprio_ci95 (mean over seeds of each run's maximum, 95 % CI).
#   gnuplot -e "data='out/figures/data/jprio-latencytop.tsv'; out='out/figures/jprio-latencytop'; fmt='png'" scripts/jprio-latencytop.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title 'Journal in the RT I/O class: worst FG stall per wait cause (kernel-build-like mix, simulated)'
set ylabel 'maximum wait (ms)'
set xlabel 'wait cause (LatencyTOP-style)'
set style fill solid 0.9 border lc rgb '#333333'
stats data using ($2 + $4) nooutput
top = STATS_max
stats data using ($3 + $5) nooutput
set yrange [0:(STATS_max > top ? STATS_max : top) * 1.2]
stats data using 2 nooutput
set xrange [-0.6:STATS_records - 0.4]
set boxwidth 0.36
dx = 0.19
set key top right
plot data using 0:(1/0):xtic(strcol(1)) with points notitle, \
     '' using ($0 - dx):2 with boxes lc rgb c_paper title 'journal thread best-effort (stock CFQ)', \
     '' using ($0 + dx):3 with boxes lc rgb c_sim title 'journal thread RT level 4 (jprio)', \
     '' using ($0 - dx):2:4 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 title '95 % CI of the mean over seeds', \
     '' using ($0 + dx):3:5 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle, \
     '' using ($0 - dx):($2 + $4):(sprintf('%.0f', $2)) with labels offset 0, 0.8 notitle, \
     '' using ($0 + dx):($3 + $5):(sprintf('%.0f', $3)) with labels offset 0, 0.8 notitle
