# Bandwidth versus request size of the bundled device presets, from the TSV
# files `mobisim device curve` writes (scripts/device-curves makes them).
# Block 0 (gnuplot index 0) of each file is QD1; block 1 the deeper queue
# depth, when the device has one. Columns: size_kib read_us write_us
# read_mbps write_mbps.
#   gnuplot -e "dir='out/device-curves'; deep='emmc51 ufs20'" scripts/device-curves.gp
if (!exists("dir")) dir = 'out/device-curves'
if (!exists("presets")) presets = 'emmc45 emmc51 ufs20 ufs21 ufs31'
if (!exists("deep")) deep = presets  # presets whose files have a QD32 block
if (!exists("out")) out = dir.'/device-curves.png'

set terminal pngcairo size 1400,1000 noenhanced font ',11'
set output out
set datafile separator "\t"
set datafile commentschars "#"
set logscale x 2
set logscale y 10
set xrange [4:1024]
set xtics (4, 8, 16, 32, 64, 128, 256, 512, 1024)
set xlabel 'request size (KiB)'
set ylabel 'bandwidth (MB/s)'
set grid
set key left top
f(p) = dir.'/'.p.'.tsv'

set multiplot layout 2,2 title 'mobisim device presets: bandwidth vs size (simulated, random aligned offsets)'
set title 'read, QD1'
plot for [p in presets] f(p) index 0 using 1:4 with linespoints title p
set title 'write, QD1'
plot for [p in presets] f(p) index 0 using 1:5 with linespoints title p
set title 'read, QD32 (QD1-only devices omitted)'
plot for [p in deep] f(p) index 1 using 1:4 with linespoints title p
set title 'write, QD32 (QD1-only devices omitted)'
plot for [p in deep] f(p) index 1 using 1:5 with linespoints title p
unset multiplot
