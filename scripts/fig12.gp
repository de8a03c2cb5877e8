# Thesis Figure 12 (docs/papers.md §1): Google Photos launch time FG only, with
# the 4 GB BG write, and with the BG write under the techniques (expc + boost +
# fgcfq); mobisim beside the thesis (FG+BG and techniques derived from its ~2.3x
# and -2.9 s). Data: out/figures/data/fig12.tsv (configs/sweeps/thesis-fig12.yaml).
#   gnuplot -e "data='out/figures/data/fig12.tsv'; out='out/figures/fig12'; fmt='png'" scripts/fig12.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title 'Fig. 12  Google Photos launch time with the FG-aware techniques (4 GB BG write)'
set ylabel 'launch time (s)'
load lib.'/bars.gp'
