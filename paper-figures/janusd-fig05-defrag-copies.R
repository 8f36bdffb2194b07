# janusd Fig. 5: data written per defragmentation when e4defrag runs every day or every
# week while apps are installed, updated and used (AutoAge), and what janusdL writes for
# the same plans (janusd §2.5).
source(file.path(
  dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))), "theme.R"
))

args <- figure_args(1)
copies <- read_table(args$tables[[1]])
measures <- c(
  host_write_bytes = "host writes (block trace)", flash_bytes_written = "flash writes (ftl-sim)"
)
# Each run (its aged image's utilization and its period) is one bar group.
run <- recurring_run_label(copies)
copies$run <- sub("defrag ", "", as.character(run))
long <- do.call(rbind, lapply(names(measures), function(column) {
  data.frame(
    interval = copies$run, method = copies$method,
    measure = measures[[column]], mib = copies[[column]] / 2^20
  )
}))
means <- aggregate(mib ~ interval + method + measure, data = long, FUN = mean)
means$measure <- factor(means$measure, levels = unname(measures))
means$method <- factor(means$method, levels = intersect(c("e4defrag", "janusdL"), means$method))
means$interval <- factor(means$interval, levels = sub("defrag ", "", levels(run)))

plot <- ggplot(means, aes(interval, mib, fill = method)) +
  geom_col(position = position_dodge(width = 0.85), width = 0.8) +
  facet_wrap(~measure, nrow = 1) +
  scale_fill_manual(values = palette_for(2)) +
  labs(x = "defragmentation period", y = "MiB per defragmentation (mean)", fill = NULL) +
  theme_mobifrag()

save_figure(plot, args)
