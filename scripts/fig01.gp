# Thesis Figure 1 (docs/papers.md §1): Google Photos launch time, FG only and
# with a 4 GB background buffered write; mobisim beside the thesis's measurement.
# Data: out/figures/data/fig01.tsv (scripts/figures: configs/sweeps/thesis-fig01.yaml).
#   gnuplot -e "data='out/figures/data/fig01.tsv'; out='out/figures/fig01'; fmt='png'" scripts/fig01.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title 'Fig. 1  Google Photos launch time, alone and with a 4 GB BG write (Galaxy S6, UFS 2.0, CFQ)'
set ylabel 'launch time (s)'
load lib.'/bars.gp'
