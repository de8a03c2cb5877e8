# FAST (USENIX FAST 2011; docs/papers.md §2): 5 to 20 apps launched together,
# cold and each with its prefetcher: the set's launch time (its longest launch) and
# the mean app's. The figure is the model's prediction.
# Data: out/figures/data/fast-multi.tsv (configs/sweeps/fast-multi.yaml); columns
#   apps cold_max_s fast_max_s cold_mean_s fast_mean_s change_pct cold_max_ci95
#   fast_max_ci95 cold_mean_ci95 fast_mean_ci95 n (means over the seeds; error bars:
#   their 95 % CI)
#   gnuplot -e "data='out/figures/data/fast-multi.tsv'; out='out/figures/fast-multi'; fmt='png'" scripts/fast-multi.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title 'FAST: N apps launched together on a SATA SSD (model prediction)'
set xlabel 'apps launched together'
set ylabel 'launch time (s)'
set xtics 5 scale 1
set xrange [3:22]
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set key top left
plot data using 1:2 with linespoints lw 2 pt 7 lc rgb c_paper title 'cold start: whole set (longest launch)', \
     '' using 1:2:7 with yerrorbars lc rgb c_paper pt 7 ps 0 lw 1.5 notitle, \
     '' using 1:3 with linespoints lw 2 pt 5 lc rgb c_sim title 'FAST: whole set', \
     '' using 1:3:8 with yerrorbars lc rgb c_sim pt 5 ps 0 lw 1.5 title '95 % CI (10 seeds)', \
     '' using 1:4 with linespoints lw 1 dt 2 pt 6 lc rgb c_paper title 'cold start: mean app', \
     '' using 1:5 with linespoints lw 1 dt 2 pt 4 lc rgb c_sim title 'FAST: mean app', \
     '' using 1:3:(sprintf('%+.1f %%', $6)) with labels offset 0, 1.3 tc rgb c_sim notitle
