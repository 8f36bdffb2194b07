# TMC Fig. 17b: bytes each defragmentation method sent to the block device (host writes;
# janusdL's remaps carry no data) and the bytes ftl-sim programmed to flash for them
# (data, and translation pages for mapping updates), by number of threads, at each
# utilization level (TMC §6.2.2).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
writes <- read_table(args$tables[[1]])
measures <- c(
  host_write_bytes = "host writes (block trace)", flash_bytes_written = "flash writes (ftl-sim)"
)
long <- do.call(rbind, lapply(names(measures), function(column) {
  data.frame(
    level = writes$level, threads = writes$threads, method = writes$method,
    measure = measures[[column]], mib = writes[[column]] / 2^20
  )
}))
long$measure <- factor(long$measure, levels = unname(measures))
long$method <- factor(long$method, levels = intersect(c("e4defrag", "janusdL"), long$method))
levels_present <- intersect(c("low", "moderate", "high", "full"), long$level)
long$level <- factor(
  long$level,
  levels = levels_present, labels = tools::toTitleCase(levels_present)
)
long$threads <- factor(long$threads, levels = sort(unique(long$threads)))

plot <- ggplot(long, aes(threads, mib, fill = method)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  facet_grid(measure ~ level, scales = "free_y") +
  scale_fill_manual(values = palette_for(2)) +
  labs(x = "concurrent appending threads", y = "MiB written for defragmentation", fill = NULL) +
  theme_mobifrag()

save_figure(plot, args, height = 4.5)
