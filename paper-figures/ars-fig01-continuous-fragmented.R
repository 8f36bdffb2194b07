# ARS Fig. 1 (§III; §V.A repeats it with ARS): extents and cold sequential-read bandwidth
# of a continuous file (one sequential 4 KiB fsync writer) and a fragmented one (8
# concurrent 4 KiB fsync writers) under F2FS, IPU, ARS and ARS+IPU. The bandwidth is
# modeled (each read's block trace replayed through ftl-sim on the device profile, the
# judged series on an emulator); the wall time is shown beside it, labelled with where it
# was measured.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
runs <- read_table(args$tables[[1]])
if (nrow(runs) == 0) stop("no runs in ", args$tables[[1]])
runs$scheme <- ars_scheme_factor(runs$scheme)
runs$file <- factor(runs$file, levels = c("continuous", "fragmented"))
# the median of the repetitions where a phone repeated the jobs
runs <- repetition_medians(runs, c("extents", "modeled_mib_s", "wall_mib_s"), c("scheme", "file"))
measures <- c(
  "extents", "sequential read, modeled (MiB/s)",
  sprintf("sequential read, %s (MiB/s)", wall_series())
)
long <- rbind(
  data.frame(runs[c("scheme", "file")], measure = measures[[1]], value = runs$extents),
  data.frame(runs[c("scheme", "file")], measure = measures[[2]], value = runs$modeled_mib_s),
  data.frame(runs[c("scheme", "file")], measure = measures[[3]], value = runs$wall_mib_s)
)
long$measure <- factor(long$measure, levels = measures)

plot <- ggplot(long, aes(scheme, value, fill = file)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  geom_text(aes(label = signif(value, 3)), position = position_dodge(width = 0.85),
    vjust = -0.3, size = 2.2) +
  facet_wrap(~measure, scales = "free_y") +
  scale_fill_manual(values = palette_for(2)) +
  labs(
    x = NULL, y = NULL, fill = "file",
    caption = sprintf(
      "modeled: the reads' block traces on the device model; %s: secondary", wall_series()
    )
  ) +
  theme_mobifrag()

save_figure(plot, args, width = 9)
