# TMC Fig. 3: SQLite and non-SQLite files among the fragmented files (DoF > 1) of an aged
# image (the last day of the AutoAge replay), with their mean DoF and size.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- last_day(with_repetitions(read_table(args$tables[[1]])))
dof <- dof[!is.na(dof$dof) & dof$dof > 1, ]
dof$files <- sqlite_or_not(dof$class)
# Each run's share, mean DoF and mean size of both kinds, then their medians over the
# runs.
run_summary <- function(run) {
  summary <- aggregate(cbind(dof, size_kib = size_bytes / 1024) ~ files, data = run, FUN = mean)
  summary$count <- as.vector(table(run$files)[as.character(summary$files)])
  summary$share <- summary$count / sum(summary$count)
  summary
}
runs <- do.call(rbind, lapply(split(dof, dof$rep), run_summary))
summary <- repetition_medians(runs, c("dof", "size_kib", "share"), "files")

# The paper's share of SQLite files among the fragmented ones (TMC §3.2).
paper <- data.frame(
  claim = "tmc-fig03-sqlite-share-of-fragmented-files", files = levels(summary$files)[[1]]
)

plot <- ggplot(summary, aes(files, share, fill = files)) +
  geom_col(width = 0.6, show.legend = FALSE) +
  paper_marks(paper, "files", nudge_x = 0.38, hjust = 0.5, vjust = -0.8) +
  geom_text(
    aes(label = sprintf("%.0f %%\nmean DoF %.1f\nmean %.0f KiB", 100 * share, dof, size_kib)),
    vjust = -0.2, size = 2.8, lineheight = 0.9
  ) +
  scale_y_continuous(
    labels = function(x) sprintf("%.0f %%", 100 * x), breaks = seq(0, 1, 0.25), limits = c(0, 1.15)
  ) +
  scale_fill_manual(values = palette_for(2)) +
  labs(x = NULL, y = "share of fragmented files") +
  theme_mobifrag()

save_figure(plot, args, width = 4)
