# ESL'20 (docs/papers.md §3): mean launch time of the 16 launches under demand
# paging (baseline) and explicit loading with reordering, merging and padding,
# without and with background I/O; labels give the change against demand paging.
# The figure is the model's prediction: means over the seeds, error bars their 95 % CI.
# Data: out/figures/data/esl20.tsv (as esl20-iosize.gp).
#   gnuplot -e "data='out/figures/data/esl20.tsv'; out='out/figures/esl20-loadtime'; fmt='png'" scripts/esl20-loadtime.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title "ESL'20: mean app launch time (16 launches, Nexus 5 eMMC: model prediction)"
set ylabel 'mean launch time (s)'
set xlabel 'how the launch working set is loaded'
set style fill solid 0.9 border lc rgb '#333333'
stats data using ($5 + $11) nooutput
set yrange [0:STATS_max * 1.2]
set xrange [-0.6:STATS_records - 0.4]
set boxwidth 0.36
dx = 0.19
plot data using 0:(1/0):xtic(strcol(1) eq 'baseline' ? 'demand paging' : strcol(1)) with points notitle, \
     '' using ($0 - dx):4 with boxes lc rgb c_sim title 'no background I/O', \
     '' using ($0 + dx):5 with boxes lc rgb c_sim2 title 'with background I/O (8 MB/s writer)', \
     '' using ($0 - dx):4:10 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle, \
     '' using ($0 + dx):5:11 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 title '95 % CI (10 seeds)', \
     '' using ($0 - dx):($4 + $10):(sprintf('%.2f s\n%+.1f %%', $4, $6)) with labels offset 0, 1.4 notitle, \
     '' using ($0 + dx):($5 + $11):(sprintf('%.2f s\n%+.1f %%', $5, $7)) with labels offset 0, 1.4 notitle
