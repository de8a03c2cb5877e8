# FAST (USENIX FAST 2011; docs/papers.md §2): launch time of each desktop app,
# cold and with the FAST prefetcher (profiled launch sequence fadvised while the app
# computes), and the app's CPU time (the max(t_ssd, t_cpu) bound). The figure is the model's prediction. Data: out/figures/data/fast-launch.tsv
# (configs/sweeps/fast-prefetch.yaml); columns app cold_s fast_s cpu_s change_pct
# cold_ci95 fast_ci95 change_ci95 n varied_s varied_ci95 varied_change_pct: means over
# the seeds, error bars their 95 % CI; "varied": FAST on launches of which a share of
# the runs differ from the profiled launch (an assumption, the sweep says which).
#   gnuplot -e "data='out/figures/data/fast-launch.tsv'; out='out/figures/fast-launch'; fmt='png'" scripts/fast-launch.gp
if (!exists("lib")) lib = 'scripts/lib'
width = 1100
load lib.'/figure.gp'
set title 'FAST: application launch time on a SATA SSD, cold start vs FAST prefetcher (model prediction, 10 seeds)'
set ylabel 'launch time (s)'
set style fill solid 0.9 border lc rgb '#333333'
stats data using ($10 + $11 > $2 ? $10 + $11 : $2) nooutput
set yrange [0:STATS_max * 1.18]
set xrange [-0.6:STATS_records - 0.4]

set bmargin 3
set boxwidth 0.26
dx = 0.27
plot data using 0:(1/0):xtic(strcol(1)) with points notitle, \
     '' using ($0 - dx):2 with boxes lc rgb c_paper title 'cold start', \
     '' using 0:3 with boxes lc rgb c_sim title 'FAST prefetcher (launches repeat exactly)', \
     '' using ($0 + dx):10 with boxes lc rgb c_sim2 title 'FAST, 5 % of runs differ per launch (assumed)', \
     '' using ($0 - dx):2:6 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle, \
     '' using 0:3:7 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 notitle, \
     '' using ($0 + dx):10:11 with yerrorbars lc rgb '#000000' pt 7 ps 0 lw 1.5 title '95 % CI (10 seeds)', \
     '' using ($0 - 0.42):4:(0.84):(0) with vectors nohead lw 2 dt 2 lc rgb c_third title "app's CPU work (assumed)", \
     '' using 0:($3 + $7 > $4 ? $3 + $7 : $4):(sprintf('%+.0f %%', $5)) with labels offset 0, 0.8 font ',8' notitle, \
     '' using ($0 + dx):($10 + $11):(sprintf('%+.0f %%', $12)) with labels offset 0, 0.8 font ',8' notitle
