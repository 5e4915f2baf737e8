# common.gp: what every memrec plot shares. trace-plot sets, with -e:
#   datafile   the query's rows, tab-separated, with a header line
#   outfile    the picture to write
#   termtype   png or svg
#   plotdir    the directory of these scripts
#   plottitle  the title (run, trace)
#   labels     space-separated distinct values of the query's "label"
#              column, in order of first appearance ("color" = index),
#              shortened to 40 characters (the database has them whole)
#   keyorder   the indices of the (at most ten) labels with the most rows,
#              most first: legends list these only
#   nlabels    how many labels there are
if (termtype eq "svg") {
    set terminal svg size 1200,700 dynamic enhanced font "sans,12" background "white"
} else {
    # gnuplot-nox may lack cairo: fall back to libgd's png terminal.
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size 1200,700 enhanced font "sans,11"
    } else {
        set terminal png size 1200,700 enhanced font "sans,11"
    }
}
set output outfile
set datafile separator "\t"
set key autotitle columnhead
set title plottitle noenhanced
set grid lc rgb "#dddddd"
set border lc rgb "#444444"
# Ten colours that stay apart, for points coloured by label: colour(i)
# for "lc rgb variable", colour_name(i) for the key.
array palette[10] = [0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd, \
                     0x8c564b, 0xe377c2, 0x17becf, 0x7f7f7f, 0xbcbd22]
colour(i) = palette[int(i - 1) % 10 + 1]
colour_name(i) = sprintf("#%06x", colour(i))
# 1.5M rather than 1.500M on time axes.
set format x "%.1s%c"
# Is label i among the legend's (keyorder)?
in_key(i) = strstrt(" " . keyorder . " ", sprintf(" %d ", i)) > 0
key_label(k) = int(word(keyorder, k))
# "top 10 of 63" over a legend that does not list every label.
key_title = (exists("nlabels") && int(nlabels) > words(keyorder)) ? \
            sprintf("top %d of %s", words(keyorder), nlabels) : ""
