# TMC Fig. 17b (e4defrag's side): bytes e4defrag wrote to the block device (its blktrace)
# and the bytes ftl-sim programmed to flash for them under the device profile's FTL,
# by number of threads, at each utilization level (TMC §6.2.1–6.2.2).
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"))

args <- figure_args(1)
writes <- read_table(args$tables[[1]])
long <- rbind(
  data.frame(
    level = writes$level, threads = writes$threads,
    measure = "host writes (block trace)", mib = writes$host_write_bytes / 2^20
  ),
  data.frame(
    level = writes$level, threads = writes$threads,
    measure = "flash writes (ftl-sim)", mib = writes$flash_bytes_written / 2^20
  )
)
long$measure <- factor(
  long$measure,
  levels = c("host writes (block trace)", "flash writes (ftl-sim)")
)
levels_present <- intersect(c("low", "moderate", "high", "full"), long$level)
long$level <- factor(long$level, levels = levels_present, labels = tools::toTitleCase(levels_present))
long$threads <- factor(long$threads, levels = sort(unique(long$threads)))

plot <- ggplot(long, aes(threads, mib, fill = measure)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  facet_wrap(~level, nrow = 1) +
  scale_fill_manual(values = palette_for(2)) +
  labs(x = "concurrent appending threads", y = "MiB written by e4defrag", fill = NULL) +
  theme_mobifrag()

save_figure(plot, args)
