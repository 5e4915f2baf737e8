# title: Latency of each field of a structure
# empty: no structure analysed in this run (trace-layout --db)
# subtitle: label
# layout_fields.gp: each field's share of the structure's weight (latency
# by default), as LWPTool's Table 5; bars are coloured by the proposed
# structure the field goes to.
# Data: plot_layout_fields.sql.
load plotdir . "/common.gp"
set style fill solid 0.85 border -1
set boxwidth 0.7
set yrange [0:*]
set ylabel "share of the structure's weight (%)"
set xlabel "field (offset)"
set key off
plot datafile using 0:2:(colour($3 + 1)):xtic(1) with boxes lc rgb variable notitle
