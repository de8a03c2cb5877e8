# Shared by the figure scripts (scripts/fig*.gp, fast-*.gp, esl20-*.gp,
# jprio-latencytop.gp): the terminal for `fmt` (png: pngcairo, pdf: pdfcairo,
# both from gnuplot-nox), the output file `out`.`fmt`, tab-separated data with
# '#' comments, and the colours every figure uses for the same things.
# Callers set: fmt ('png' | 'pdf'), out (path without extension), data (TSV).
if (!exists("fmt")) fmt = 'png'
if (!exists("width")) width = 900
if (!exists("height")) height = 560
if (fmt eq 'pdf') {
	set terminal pdfcairo size (width / 150.0), (height / 150.0) font 'DejaVu Sans,8' noenhanced
} else {
	set terminal pngcairo size width, height font 'DejaVu Sans,11' noenhanced
}
set output out.'.'.fmt
set datafile separator "\t"
set datafile commentschars "#"
set datafile missing "-"
set encoding utf8

# 'a|b' in a data label is a two-line tick label
nl(s) = (strstrt(s, '|') ? s[1:strstrt(s, '|') - 1]."\n".nl(s[strstrt(s, '|') + 1:]) : s)

c_sim = '#2b6cb0'     # mobisim, the main series
c_sim2 = '#90cdf4'    # mobisim, a second condition (with BG, a variant)
c_paper = '#a0a0a0'   # the paper's measured value
c_third = '#dd6b20'
c_fourth = '#38a169'
set border 3
set xtics nomirror scale 0
set ytics nomirror
set grid ytics lc rgb '#dddddd'
set key top left reverse Left noautotitle
