# ESL'20 (docs/papers.md §3): why padding pays on flash - the Nexus 5 eMMC
# preset's QD1 read time and bandwidth against request size, the table the padding
# DP reads (device idle latency). Data: `mobisim device curve configs/devices/emmc45.yaml`
# (columns size_kib read_us write_us read_mbps write_mbps; block 0 = QD1).
#   gnuplot -e "data='out/figures/run/emmc45-curve.tsv'; out='out/figures/esl20-curve'; fmt='png'" scripts/esl20-curve.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title "ESL'20: eMMC 4.5 (Nexus 5 preset) read time and bandwidth vs request size, QD1 (simulated)"
set xlabel 'request size (KiB)'
set ylabel 'read time (ms)'
set y2label 'read bandwidth (MB/s)'
set logscale x 2
set xtics (4, 8, 16, 32, 64, 128, 256, 512, 1024) scale 1
set xrange [3.5:1200]
set yrange [0:*]
set y2range [0:*]
set ytics nomirror
set y2tics
set border 11
set key top left
plot data index 0 using 1:($2 / 1000) with linespoints lw 2 pt 7 lc rgb c_sim title 'read time (left axis)', \
     '' index 0 using 1:4 axes x1y2 with linespoints lw 2 pt 5 lc rgb c_third title 'bandwidth (right axis)'
