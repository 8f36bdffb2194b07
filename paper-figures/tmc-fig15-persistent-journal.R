# TMC Fig. 15: mean DoF of journal files, database files and all SQLite files after a
# Mobibench-like insert benchmark (one database per thread) in each journal mode, by
# number of threads, on pristine file systems (TMC §6.1.2). The benchmark is repeated
# (its writers interleave differently every run): the bars are the median of the runs'
# means, the lines their range.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- with_repetitions(read_table(args$tables[[1]]))
dof <- dof[dof$class == "sqlite" & dof$kind != "shm" & !is.na(dof$dof), ]
groups <- rbind(
  transform(dof[dof$kind %in% c("journal", "wal"), ], files = "journal files"),
  transform(dof[dof$kind == "database", ], files = "database files"),
  transform(dof, files = "all SQLite files")
)
means <- aggregate(dof ~ mode + threads + files + rep, data = groups, FUN = mean)
means <- over_repetitions(means, "dof", c("mode", "threads", "files"))
means$mode <- factor(
  toupper(means$mode),
  levels = intersect(c("DELETE", "TRUNCATE", "PERSIST", "WAL"), toupper(means$mode))
)
means$files <- factor(
  means$files,
  levels = c("journal files", "database files", "all SQLite files")
)
means$threads <- factor(means$threads, levels = sort(unique(means$threads)))

dodge <- position_dodge(width = 0.85)
plot <- ggplot(means, aes(threads, median, fill = files)) +
  geom_col(position = dodge, width = 0.8) +
  geom_linerange(aes(ymin = low, ymax = high), position = dodge, colour = "grey20") +
  geom_text(aes(y = high, label = signif(median, 3)), position = dodge, vjust = -0.4,
    size = 2) +
  geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
  facet_wrap(~mode, nrow = 1) +
  scale_fill_manual(values = palette_for(3)) +
  labs(
    x = "concurrent threads (one database each)", y = "mean DoF (median of runs)",
    fill = NULL
  ) +
  theme_mobifrag()

save_figure(plot, args, width = 8)
