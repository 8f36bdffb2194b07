# TMC Fig. 7: mean DoF of an app's SQLite and non-SQLite files after its scenario ran on
# a file system aged by fill/delete to each utilization level (Low is pristine).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- with_repetitions(app_files(read_table(args$tables[[1]])))
dof <- dof[!is.na(dof$dof), ]
dof$files <- sqlite_or_not(dof$class)
# Each run's mean, then their median and range over the runs.
runs <- aggregate(dof ~ app + level + files + rep, data = dof, FUN = mean)
means <- over_repetitions(runs, "dof", c("app", "level", "files"))
levels_present <- intersect(c("low", "moderate", "high", "full"), means$level)
means$level <- factor(
  means$level,
  levels = levels_present, labels = tools::toTitleCase(levels_present)
)
means$app <- app_label(means$app)

# The paper's DoF of the apps' SQLite files at Low (TMC §4.3): on the SQLite bars.
paper <- data.frame(
  claim = c(
    "tmc-fig07-sqlite-fragmented-at-low-utilization", "tmc-fig07-earth-sqlite-fragmented-at-low"
  ),
  app = app_label(c("facebook", "earth")), level = levels(means$level)[[1]]
)

# SQLite files reach a DoF of thousands where non-SQLite ones stay near 1: a log axis
# shows both, its bars rising from the panel's foot.
dodge <- position_dodge(width = 0.8)
plot <- ggplot(means, aes(level, median, fill = files)) +
  geom_col(position = dodge, width = 0.75) +
  geom_linerange(aes(ymin = low, ymax = high), position = dodge, colour = "grey20") +
  geom_text(aes(y = high, label = signif(median, 3)), position = dodge, vjust = -0.3,
    size = 2.3) +
  geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
  paper_marks(paper, "level", nudge_x = -0.2) +
  facet_wrap(~app) +
  scale_y_log10(expand = expansion(mult = c(0.02, 0.12))) +
  scale_fill_manual(values = palette_for(2)) +
  labs(
    x = "file system utilization", y = "mean DoF (log scale)", fill = NULL,
    caption = paste(
      "bars: the median of the runs, lines their range;",
      "dashed line: DoF 1, an unfragmented file"
    )
  ) +
  theme_mobifrag()

save_figure(plot, args)
