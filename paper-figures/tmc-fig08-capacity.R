# TMC Fig. 8: mean DoF of each app's SQLite files after its scenario ran on a pristine
# device of each capacity; the mean fragment size (KiB) of those files above each bar.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- with_repetitions(app_files(read_table(args$tables[[1]])))
dof <- dof[!is.na(dof$dof) & dof$class == "sqlite", ]
dof$fragment_kib <- dof$allocated_bytes / dof$fragments / 1024
# Each run's means, then their median (and the DoF's range) over the runs.
runs <- aggregate(cbind(dof, fragment_kib) ~ app + capacity_mib + rep, data = dof, FUN = mean)
means <- merge(
  over_repetitions(runs, "dof", c("app", "capacity_mib")),
  repetition_medians(runs, "fragment_kib", c("app", "capacity_mib"))
)
means$capacity <- factor(sprintf("%d MiB", means$capacity_mib),
  levels = sprintf("%d MiB", sort(unique(means$capacity_mib)))
)
means$app <- app_label(means$app)

# The paper's SQLite DoF: at least 6 for Google Earth, about 3 for most apps (TMC §4.3).
paper <- data.frame(claim = "tmc-fig08-earth-sqlite-dof-at-least-6", app = app_label("earth"))
paper <- paper[paper$app %in% means$app, ]
most_apps <- paper_value("tmc-fig08-sqlite-dof-about-3")

dodge <- position_dodge(width = 0.8)
plot <- ggplot(means, aes(app, median, fill = capacity)) +
  geom_col(position = dodge, width = 0.75) +
  geom_linerange(aes(ymin = low, ymax = high), position = dodge, colour = "grey20") +
  geom_hline(yintercept = most_apps, linetype = "dashed", colour = "grey30", na.rm = TRUE) +
  paper_marks(paper, "app") +
  geom_text(aes(y = high, label = sprintf("%.0f", fragment_kib)),
    position = dodge, vjust = -0.4, size = 2.3
  ) +
  scale_y_continuous(expand = expansion(mult = c(0.02, 0.08))) +
  scale_fill_manual(values = palette_for(length(levels(means$capacity)))) +
  labs(
    x = NULL, y = "mean DoF of SQLite files", fill = "capacity",
    caption = paste0(
      "bars: the median of the runs, lines their range",
      if (!is.na(most_apps)) "; dashed line: the paper's DoF of most apps' SQLite files"
    )
  ) +
  theme_mobifrag() +
  theme(axis.text.x = element_text(angle = 30, hjust = 1))

save_figure(plot, args)
