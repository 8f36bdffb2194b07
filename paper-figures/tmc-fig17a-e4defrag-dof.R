# TMC Fig. 17a: mean DoF of concurrent appenders' files before defragmentation, after the
# real e4defrag, and after janusdL (e4defrag's plan carried out by FTL remapping), by
# number of threads, at each utilization level (TMC §6.2.1–6.2.2).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
dof <- read_table(args$tables[[1]])
dof <- dof[!is.na(dof$dof), ]
# The state before defragmenting is the same run for every method: draw it once.
dof$bar <- ifelse(dof$phase == "before_defrag", "before_defrag", dof$method)
dof <- dof[dof$phase == "after_defrag" | dof$method == "e4defrag", ]
means <- aggregate(dof ~ level + threads + bar, data = dof, FUN = mean)
levels_present <- intersect(c("low", "moderate", "high", "full"), means$level)
means$level <- factor(
  means$level,
  levels = levels_present, labels = tools::toTitleCase(levels_present)
)
bar_names <- c(
  before_defrag = "before defragmentation", e4defrag = "after e4defrag",
  janusdL = "after janusdL"
)
bars <- intersect(names(bar_names), means$bar)
means$bar <- factor(means$bar, levels = bars, labels = bar_names[bars])
means$threads <- factor(means$threads, levels = sort(unique(means$threads)))

# The paper's DoF after e4defrag at High with 10 threads (TMC §6.2.1), on its bar.
paper <- data.frame(
  claim = "tmc-fig17a-e4defrag-high-leaves-fragments", threads = "10", level = "High"
)
paper <- paper[paper$level %in% levels(means$level) & paper$threads %in% levels(means$threads), ]

plot <- ggplot(means, aes(threads, dof, fill = bar)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  geom_hline(yintercept = 1, linetype = "dashed", colour = "grey40") +
  paper_marks(paper, "threads", nudge_x = dodged_offset(match("e4defrag", bars), length(bars))) +
  facet_wrap(~level, nrow = 1) +
  scale_fill_manual(values = palette_for(3)) +
  labs(x = "concurrent appending threads", y = "mean DoF", fill = NULL) +
  theme_mobifrag()

save_figure(plot, args)
