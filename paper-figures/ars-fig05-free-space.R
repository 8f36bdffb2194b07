# ARS Fig. 5 (§V.A): free-space fragments by size level (L1 4 KiB ... L7 above 128 KiB)
# at High, after the Fig. 4 measurements, as a share of each scheme's fragments: the
# median of the repetitions.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
runs <- read_table(args$tables[[1]])
runs <- runs[runs$phase == "measured", ]
if (nrow(runs) == 0) stop("no measured phase in ", args$tables[[1]])
runs <- repetition_medians(runs, c("fragments", "share"), c("scheme", "level"))
runs$scheme <- ars_scheme_factor(runs$scheme)
runs$level <- factor(runs$level, levels = paste0("L", 1:7))
totals <- aggregate(fragments ~ scheme, runs, sum)

plot <- plot_ars_bars(runs, "level", "share", "share of free-space fragments") +
  labs(caption = paste0("Free-space fragments at High: ",
    paste0(totals$scheme, " ", round(totals$fragments), collapse = ", ")))

save_figure(plot, args)
