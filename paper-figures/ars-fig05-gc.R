# ARS §V.A (with Fig. 5): F2FS's GC calls and moved blocks, GC's own read and write
# blocks (F2FS's iostat), and the disk's read and write I/Os, over the High measurements
# of Fig. 4 (after Android's GC pass), per scheme: the median of the repetitions.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
runs <- read_table(args$tables[[1]])
keep <- c(gc_calls = "GC calls", gc_moved_blocks = "moved blocks",
  gc_read_blocks = "GC read blocks", gc_write_blocks = "GC write blocks",
  read_ios = "read I/Os (all)", write_ios = "write I/Os (all)")
runs <- runs[runs$counter %in% names(keep), ]
if (nrow(runs) == 0) stop("no GC counters in ", args$tables[[1]])
runs <- repetition_medians(runs, "delta", c("scheme", "counter"))
runs$scheme <- ars_scheme_factor(runs$scheme)
runs$counter <- factor(unname(keep[runs$counter]), levels = unname(keep))

plot <- plot_ars_bars(runs, "scheme", "delta", "count over the High measurements") +
  facet_wrap(~counter, scales = "free_y", nrow = 1) +
  theme(axis.text.x = element_text(angle = 30, hjust = 1))

save_figure(plot, args, width = 11)
