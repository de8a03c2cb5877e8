# Thesis Figure 15 (docs/papers.md §1): the camera burst shot's fsync() time
# (mean over its 20 fsyncs) FG only, with the 4 GB BG write, and with the
# techniques. The thesis gives ratios only (24.3x with BG; -4.94 % in the chapter,
# -49.4 % in the conclusion with the techniques), shown as a note.
# Data: out/figures/data/fig15.tsv (configs/sweeps/thesis-fig15.yaml).
#   gnuplot -e "data='out/figures/data/fig15.tsv'; out='out/figures/fig15'; fmt='png'" scripts/fig15.gp
if (!exists("lib")) lib = 'scripts/lib'
load lib.'/figure.gp'
set title 'Fig. 15  Camera burst shot: fsync() time per shot (20 shots of 3 MiB)'
set ylabel 'mean fsync() time (ms)'
has_paper = 0
set label 1 "thesis: 24.3x longer with BG;\nthe techniques cut it by 4.94 % (ch. 5) / 49.4 % (conclusion)" at graph 0.02, graph 0.94 left tc rgb '#555555'
set key top right
load lib.'/bars.gp'
