# ESL'20 (docs/papers.md §3): average request size of the 16 launches under
# demand paging (baseline) and explicit loading with reordering, merging and
# padding, without and with background I/O. The figure is the model's prediction.
# Data: out/figures/data/esl20.tsv (configs/sweeps/esl20-padding.yaml); columns
#   mode kib_nobg kib_bg launch_nobg_s launch_bg_s change_nobg_pct change_bg_pct
#   kib_nobg_ci95 kib_bg_ci95 launch_nobg_ci95 launch_bg_ci95 n (means over the seeds;
#   error bars: their 95 % CI)
#   gnuplot -e "data='out/figures/data/esl20.tsv'; out='out/figures/esl20-iosize'; fmt='png'" scripts/esl20-iosize.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title "ESL'20: average I/O size of app launches (16 launches, Nexus 5 eMMC: model prediction)"
set ylabel 'average request size (KiB)'
set xlabel 'how the launch working set is loaded'
set style fill solid 0.9 border lc rgb '#333333'
stats data using ($2 + $8) nooutput
set yrange [0:STATS_max * 1.2]
set xrange [-0.6:STATS_records - 0.4]
set boxwidth 0.36
dx = 0.19
plot data using 0:(1/0):xtic(strcol(1) eq 'baseline' ? 'demand paging' : strcol(1)) with points notitle, \
     '' using ($0 - dx):2 with boxes lc rgb c_sim title 'no background I/O', \
     '' using ($0 + dx):3 with boxes lc rgb c_sim2 title 'with background I/O (8 MB/s writer)', \
     '' using ($0 - dx):2:8 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle, \
     '' using ($0 + dx):3:9 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 title '95 % CI (10 seeds)', \
     '' using ($0 - dx):($2 + $8):(sprintf('%.0f', $2)) with labels offset 0, 0.8 notitle, \
     '' using ($0 + dx):($3 + $9):(sprintf('%.0f', $3)) with labels offset 0, 0.8 notitle
