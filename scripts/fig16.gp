# Thesis Figure 16 (docs/papers.md §1): the video recording's fsync() time FG
# only, with the 4 GB BG write, with the techniques but boost, and with all the
# techniques (left; boost's share of the saving is the difference of the last two),
# and the BG writer's run time (right). The thesis: -49.4 %, boosting ~51 % of the
# saving, BG run time slightly longer.
# Data: out/figures/data/fig16.tsv and fig16-bg.tsv (configs/sweeps/thesis-fig16.yaml).
#   gnuplot -e "data='out/figures/data/fig16.tsv'; data_bg='out/figures/data/fig16-bg.tsv'; out='out/figures/fig16'; fmt='png'" scripts/fig16.gp
if (!exists("lib")) lib = 'scripts/lib'
if (!exists("data_bg")) data_bg = data[1:strlen(data) - 4].'-bg.tsv'
width = 1200
load lib.'/figure.gp'
has_paper = 0
set multiplot layout 1, 2 title 'Fig. 16  Video recording under a 4 GB BG write' margins 0.07, 0.98, 0.16, 0.80 spacing 0.08
set title "fsync() at the end of the recording\n(thesis: -49.4 % with the techniques, ~51 % of it from boosting)"
set ylabel 'fsync() time (ms)'
load lib.'/bars.gp'
unset label
set title "BG process run time\n(thesis: rises slightly with the techniques)"
set ylabel 'BG run time (s)'
data = data_bg
ymin = 0
undefine ymax
load lib.'/bars.gp'
unset multiplot
