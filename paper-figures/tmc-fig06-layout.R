# TMC Fig. 6 (Ext4 column; F2FS as a second panel): where the fragments of each file lie
# in the logical block space after 1, 2 and 5 threads appended 4 KiB records with fsync.
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

# A writer's file (writer0.db, writer1.db, ...) as the thread that wrote it, in their order.
writer_label <- function(file) {
  number <- suppressWarnings(as.integer(sub("^writer([0-9]+)\\..*$", "\\1", file)))
  labels <- ifelse(is.na(number), file, sprintf("thread %d", number + 1))
  factor(labels, levels = unique(labels[order(number, labels)]))
}

args <- figure_args(2)
layout <- read_table(args$tables[[1]])
dof <- read_table(args$tables[[2]])

# Repeated runs (a rep column): the mean DoF is over every run, the layout drawn is the
# first run's.
runs <- if ("rep" %in% names(dof)) length(unique(dof$rep)) else 1
if ("rep" %in% names(layout)) layout <- layout[layout$rep == min(layout$rep), ]
mean_dof <- aggregate(dof ~ fs + writers, data = dof, FUN = mean)
mean_dof$label <- sprintf("mean DoF\n%.1f (%d runs)", mean_dof$dof, runs)
# The paper's mean DoF of Ext4's files with 5 writers (TMC §4.2.2) beside that row's.
paper <- paper_value("tmc-fig06-ext4-five-writers-fragment")
five <- mean_dof$fs == "ext4" & mean_dof$writers == 5
if (!is.na(paper)) mean_dof$label[five] <- sprintf("%s\npaper %g", mean_dof$label[five], paper)

layout$writers_f <- factor(layout$writers, levels = sort(unique(layout$writers)))
layout$y <- as.integer(layout$writers_f)
layout$file <- writer_label(basename(layout$path))
mean_dof$y <- as.integer(factor(mean_dof$writers, levels = levels(layout$writers_f)))
x_max <- max(layout$start_block + layout$length_blocks)

plot <- ggplot(layout) +
  geom_rect(
    aes(
      xmin = start_block, xmax = start_block + length_blocks,
      ymin = y - 0.35, ymax = y + 0.35, fill = file
    )
  ) +
  geom_text(
    data = mean_dof, aes(x = x_max * 1.02, y = y, label = label),
    hjust = 0, size = 2.8, lineheight = 0.9
  ) +
  expand_limits(x = x_max * 1.15) +
  scale_y_continuous(
    breaks = seq_along(levels(layout$writers_f)), labels = levels(layout$writers_f)
  ) +
  scale_fill_manual(values = palette_for(nlevels(layout$file))) +
  facet_wrap(~fs, ncol = 1, scales = "free_x") +
  labs(
    x = "relative logical block address (4 KiB blocks)",
    y = "concurrent threads",
    fill = "file written by",
    caption = "Each rectangle is one physically contiguous fragment; one colour per file."
  ) +
  theme_mobifrag()

save_figure(plot, args)
