# Thesis Figure 2 (docs/papers.md §1): time to switch to Gallery right after a
# camera burst shot, FG only and with a 4 GB background buffered write.
# Data: out/figures/data/fig02.tsv (configs/sweeps/thesis-fig02.yaml).
#   gnuplot -e "data='out/figures/data/fig02.tsv'; out='out/figures/fig02'; fmt='png'" scripts/fig02.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title 'Fig. 2  Switch to Gallery right after a camera burst shot, alone and with a 4 GB BG write'
set ylabel 'switch time (s)'
load lib.'/bars.gp'
