# Thesis Figure 3 (docs/papers.md §1): time to switch to Gallery right after a
# video recording, FG only and with a 4 GB background buffered write.
# Data: out/figures/data/fig03.tsv (configs/sweeps/thesis-fig03.yaml).
#   gnuplot -e "data='out/figures/data/fig03.tsv'; out='out/figures/fig03'; fmt='png'" scripts/fig03.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title 'Fig. 3  Switch to Gallery right after a video recording, alone and with a 4 GB BG write'
set ylabel 'switch time (s)'
load lib.'/bars.gp'
