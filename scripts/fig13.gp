# Thesis Figure 13 (docs/papers.md §1): the BG process's run time (its 4 GB
# buffered write) during the Photos launch, without and with the techniques. The
# thesis gives only the difference (0.98 s shorter) on a 20-34 s axis, which this
# figure shows from zero. Data: out/figures/data/fig13.tsv (Figure 12's runs).
#   gnuplot -e "data='out/figures/data/fig13.tsv'; out='out/figures/fig13'; fmt='png'" scripts/fig13.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title 'Fig. 13  BG process run time (4 GB buffered write) during the Photos launch'
set ylabel 'BG run time (s)'
has_paper = 0
stats data using 2 nooutput
set label 1 'thesis: 0.98 s shorter with the techniques' at graph 0.98, graph 0.94 right tc rgb '#555555'
load lib.'/bars.gp'
