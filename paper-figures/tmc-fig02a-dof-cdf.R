# TMC Fig. 2a: cumulative distribution of file DoF in an aged image (the last day of the
# AutoAge replay).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- last_day(with_repetitions(read_table(args$tables[[1]])))
dof <- dof[!is.na(dof$dof), ]
dof$run <- factor(dof$rep)
fragmented <- tapply(dof$dof > 1, dof$rep, mean)
files <- tapply(dof$dof, dof$rep, length)

# The paper's share of fragmented files (TMC §3.2), where the distribution leaves DoF 1.
paper <- data.frame(claim = "tmc-fig02a-share-of-fragmented-files", dof = 1)

plot <- ggplot(dof, aes(dof)) +
  stat_ecdf(aes(group = run), geom = "step", colour = okabe_ito[[5]], alpha = 0.7) +
  paper_marks(paper, "dof", transform = function(share) 1 - share) +
  scale_x_log10() +
  annotate("text",
    x = max(dof$dof), y = 0.05, hjust = 1, size = 3,
    label = sprintf(
      "%d runs: %d-%d files, %.0f-%.0f %% with DoF > 1", length(files),
      min(files), max(files), 100 * min(fragmented), 100 * max(fragmented)
    )
  ) +
  labs(x = "DoF (log scale)", y = "cumulative share of files") +
  theme_mobifrag()

save_figure(plot, args, width = 5)
