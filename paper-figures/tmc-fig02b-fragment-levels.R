# TMC Fig. 2b: share of each fragment-size level (TMC Table 2) among the fragments of
# fragmented files (DoF > 1) in an aged image (the last day of the AutoAge replay).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- last_day(with_repetitions(read_table(args$tables[[1]])))
dof <- dof[!is.na(dof$dof) & dof$dof > 1, ]
level_names <- paste0("L", 1:7)
# Each run's share of every level, then their median and range over the runs.
run_shares <- function(run) {
  fragments <- vapply(level_names, function(l) sum(run[[l]]), numeric(1))
  data.frame(rep = run$rep[[1]], level = level_names, share = fragments / sum(fragments))
}
runs <- do.call(rbind, lapply(split(dof, dof$rep), run_shares))
counts <- over_repetitions(runs, "share", "level")
counts$level <- factor(counts$level, levels = level_names)
counts$share <- counts$median

# The paper's share of level-1 fragments (TMC §3.2).
paper <- data.frame(claim = "tmc-fig02b-level1-share-of-fragments", level = "L1")

plot <- ggplot(counts, aes(level, share)) +
  geom_col(fill = okabe_ito[[5]], width = 0.7) +
  geom_linerange(aes(ymin = low, ymax = high)) +
  geom_text(aes(label = sprintf("%.0f %%", 100 * share)), vjust = -0.4, size = 3) +
  paper_marks(paper, "level", nudge_x = 0.2) +
  scale_y_continuous(labels = function(x) sprintf("%.0f %%", 100 * x)) +
  labs(x = "fragment size level", y = "share of fragments") +
  theme_mobifrag()

save_figure(plot, args, width = 5)
