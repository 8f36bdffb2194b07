// flashsim-replay: replay a block trace in ftl-sim's CSV format
// (time_ns,op,sector,sectors[,dst_sector]; ftl-sim/README.md) through FlashSim's
// DFTL and print a JSON summary on standard output.
//
//   flashsim-replay --conf ssd.conf [--precondition pre.csv]... trace.csv
//
// mobifrag's own driver. It is compiled against FlashSim's sources as the pinned
// upstream commit has them (unpacked under build/flashsim/ by fetch.sh, never copied
// into the repository); FlashSim itself is GPL (its COPYING).
//
// How requests become FlashSim events, as FlashSim's own uFLIP driver
// (run_ufliptrace.cpp) issues them: one event per page, each starting when the
// previous one finished (a closed loop: timestamps only order the requests, as with
// `ftl-sim replay --arrivals closed`). The device time is the sum of the events' times.
// Because every event starts after the previous one, the DFTL's cached-mapping-table
// LRU, which orders entries by the start time of their last access, follows the order
// of accesses. Reads and writes are replayed; trims go to the DFTL's trim; flushes
// (FlashSim has no write cache) are counted and skipped; remaps are refused.
// The preconditioning traces are replayed first and then the statistics are reset;
// the mapping, the cache and the clock carry over.

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "ssd.h"

#ifndef FLASHSIM_COMMIT
#define FLASHSIM_COMMIT "unknown"
#endif

namespace {

struct Request {
	char op;  // R, W, T or F
	uint64_t sector;
	uint64_t sectors;
	std::string origin;  // file:line
};

struct OpCount {
	uint64_t requests = 0;
	uint64_t pages = 0;
	double time_us = 0.0;
};

[[noreturn]] void die(const std::string &msg)
{
	fprintf(stderr, "flashsim-replay: %s\n", msg.c_str());
	exit(1);
}

std::string trim(const std::string &s)
{
	size_t a = s.find_first_not_of(" \t\r");
	if (a == std::string::npos)
		return "";
	size_t b = s.find_last_not_of(" \t\r");
	return s.substr(a, b - a + 1);
}

bool parse_u64(const std::string &field, uint64_t &out)
{
	std::string f = trim(field);
	if (f.empty() || f.find_first_not_of("0123456789") != std::string::npos)
		return false;
	errno = 0;
	char *end = nullptr;
	unsigned long long v = strtoull(f.c_str(), &end, 10);
	if (errno == ERANGE || *end != '\0')
		return false;
	out = v;
	return true;
}

char parse_op(std::string s)
{
	s = trim(s);
	for (auto &c : s)
		c = (char)tolower((unsigned char)c);
	if (s == "r" || s == "read")
		return 'R';
	if (s == "w" || s == "write")
		return 'W';
	if (s == "t" || s == "d" || s == "trim" || s == "discard")
		return 'T';
	if (s == "f" || s == "flush")
		return 'F';
	if (s == "m" || s == "remap")
		return 'M';
	return 0;
}

// The requests of a CSV trace, in file order; errors name the file and line.
std::vector<Request> read_csv(const std::string &path)
{
	std::ifstream in(path);
	if (!in)
		die(path + ": cannot open: " + strerror(errno));
	std::vector<Request> out;
	std::string line;
	long number = 0;
	while (std::getline(in, line)) {
		number++;
		std::string where = path + ": line " + std::to_string(number);
		std::string t = trim(line);
		if (t.empty() || t[0] == '#')
			continue;
		std::vector<std::string> f;
		std::stringstream ss(t);
		std::string item;
		while (std::getline(ss, item, ','))
			f.push_back(trim(item));
		if (isalpha((unsigned char)f[0][0])) {
			if (f[0] == "time_ns" && f.size() >= 4)
				continue;  // header
			die(where + ": header must be time_ns,op,sector,sectors[,dst_sector]");
		}
		if (f.size() < 4 || f.size() > 5)
			die(where + ": expected 4 or 5 comma-separated fields, found " +
			    std::to_string(f.size()));
		Request r;
		uint64_t time_ns;
		if (!parse_u64(f[0], time_ns))
			die(where + ": time_ns: \"" + f[0] + "\" is not a non-negative integer");
		r.op = parse_op(f[1]);
		if (r.op == 0)
			die(where + ": op: \"" + f[1] + "\" is not one of R, W, T, F, M");
		if (r.op == 'M')
			die(where + ": remap: FlashSim has no remap command");
		if (!parse_u64(f[2], r.sector))
			die(where + ": sector: \"" + f[2] + "\" is not a non-negative integer");
		if (!parse_u64(f[3], r.sectors))
			die(where + ": sectors: \"" + f[3] + "\" is not a non-negative integer");
		if (r.sectors == 0 && r.op != 'F')
			die(where + ": sectors: 0; a request covers at least one sector");
		r.origin = where;
		out.push_back(r);
	}
	return out;
}

// FlashSim reads its configuration from ./ssd.conf only: copy the given file into a
// scratch directory and load it from there.
void load_flashsim_config(const std::string &conf)
{
	std::ifstream in(conf, std::ios::binary);
	if (!in)
		die(conf + ": cannot open: " + strerror(errno));
	std::stringstream text;
	text << in.rdbuf();
	const char *tmp = getenv("TMPDIR");
	std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/flashsim-conf-XXXXXX";
	std::vector<char> dir(pattern.begin(), pattern.end());
	dir.push_back('\0');
	if (mkdtemp(dir.data()) == nullptr)
		die("cannot make a scratch directory " + pattern + ": " + strerror(errno));
	std::string copy = std::string(dir.data()) + "/ssd.conf";
	{
		std::ofstream out(copy, std::ios::binary);
		out << text.str();
	}
	char cwd[4096];
	if (getcwd(cwd, sizeof cwd) == nullptr)
		die(std::string("getcwd: ") + strerror(errno));
	if (chdir(dir.data()) != 0)
		die(std::string("chdir: ") + strerror(errno));
	ssd::load_config();
	if (chdir(cwd) != 0)
		die(std::string("chdir: ") + strerror(errno));
	unlink(copy.c_str());
	rmdir(dir.data());
}

// A text FlashSim prints on standard output (its statistics), captured.
template <typename F> std::string capture_stdout(F f)
{
	fflush(stdout);
	char name[] = "/tmp/flashsim-out-XXXXXX";
	int fd = mkstemp(name);
	if (fd < 0)
		die(std::string("mkstemp: ") + strerror(errno));
	unlink(name);
	int saved = dup(1);
	dup2(fd, 1);
	f();
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	std::string text;
	lseek(fd, 0, SEEK_SET);
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		text.append(buf, (size_t)n);
	close(fd);
	return text;
}

long number_after(const std::string &text, const std::string &label)
{
	size_t at = text.find(label);
	if (at == std::string::npos)
		return -1;
	return atol(text.c_str() + at + label.size());
}

std::string json_string(const std::string &s)
{
	std::string out = "\"";
	for (char c : s) {
		if (c == '"' || c == '\\')
			out += '\\';
		if ((unsigned char)c < 0x20) {
			char b[8];
			snprintf(b, sizeof b, "\\u%04x", c);
			out += b;
			continue;
		}
		out += c;
	}
	return out + "\"";
}

struct Replayer {
	ssd::Ssd &ssd;
	uint64_t pages_total;
	uint64_t page_size;
	double now = 0.0;  // µs, FlashSim's time unit here
	OpCount read, write, trim;
	uint64_t flushes = 0;

	Replayer(ssd::Ssd &device, uint64_t pages, uint64_t page_bytes)
	    : ssd(device), pages_total(pages), page_size(page_bytes)
	{
	}

	void run(const std::vector<Request> &reqs)
	{
		for (const Request &r : reqs) {
			if (r.op == 'F') {
				flushes++;
				continue;
			}
			unsigned __int128 first_byte = (unsigned __int128)r.sector * 512;
			unsigned __int128 end_byte = ((unsigned __int128)r.sector + r.sectors) * 512;
			unsigned __int128 first = first_byte / page_size;
			unsigned __int128 end = (end_byte + page_size - 1) / page_size;
			if (end > pages_total) {
				char msg[512];
				snprintf(msg, sizeof msg,
				         ": address beyond the device: sectors %llu + %llu but FlashSim's "
				         "device has %llu pages of %llu bytes (%llu sectors)",
				         (unsigned long long)r.sector, (unsigned long long)r.sectors,
				         (unsigned long long)pages_total, (unsigned long long)page_size,
				         (unsigned long long)(pages_total * page_size / 512));
				die(r.origin + msg);
			}
			OpCount &c = r.op == 'R' ? read : r.op == 'W' ? write : trim;
			enum ssd::event_type type =
			    r.op == 'R' ? ssd::READ : r.op == 'W' ? ssd::WRITE : ssd::TRIM;
			double start = now;
			for (uint64_t lpn = (uint64_t)first; lpn < (uint64_t)end; lpn++) {
				double taken = ssd.event_arrive(type, (ssd::ulong)lpn, 1, now);
				now += taken;
				c.pages++;
			}
			c.requests++;
			c.time_us += now - start;
		}
	}

	void reset()
	{
		read = OpCount();
		write = OpCount();
		trim = OpCount();
		flushes = 0;
	}
};

void usage()
{
	fprintf(stderr,
	        "usage: flashsim-replay --conf ssd.conf [--precondition pre.csv]... trace.csv\n");
	exit(2);
}

}  // namespace

int main(int argc, char **argv)
{
	std::string conf, trace;
	std::vector<std::string> preconditions;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--conf" && i + 1 < argc)
			conf = argv[++i];
		else if (a == "--precondition" && i + 1 < argc)
			preconditions.push_back(argv[++i]);
		else if (a == "-h" || a == "--help")
			usage();
		else if (!a.empty() && a[0] == '-')
			usage();
		else if (trace.empty())
			trace = a;
		else
			usage();
	}
	if (conf.empty() || trace.empty())
		usage();

	std::vector<std::vector<Request>> pre;
	for (const auto &p : preconditions)
		pre.push_back(read_csv(p));
	std::vector<Request> measured = read_csv(trace);

	load_flashsim_config(conf);
	if (ssd::FTL_IMPLEMENTATION != 3)
		die(conf + ": FTL_IMPLEMENTATION " + std::to_string(ssd::FTL_IMPLEMENTATION) +
		    ": this driver replays FlashSim's DFTL (3) only");
	if (ssd::CACHE_DFTL_LIMIT < 1)
		die(conf + ": CACHE_DFTL_LIMIT must be at least 1 (FlashSim's DFTL would evict "
		           "from an empty cache)");
	if (ssd::VIRTUAL_PAGE_SIZE != 1)
		die(conf + ": VIRTUAL_PAGE_SIZE must be 1");

	// FlashSim reports on standard output as it goes; the JSON summary owns it, so
	// FlashSim's own messages go to standard error.
	fflush(stdout);
	int json_fd = dup(1);
	dup2(2, 1);

	uint64_t pages_total = (uint64_t)ssd::SSD_SIZE * ssd::PACKAGE_SIZE * ssd::DIE_SIZE *
	                       ssd::PLANE_SIZE * ssd::BLOCK_SIZE;
	// The DFTL's sizing (FTLs/dftl_parent.cpp): address bits, bytes per entry, entries
	// per translation page, and CACHE_DFTL_LIMIT translation pages of entries.
	int address_bits = log(ssd::NUMBER_OF_ADDRESSABLE_BLOCKS * ssd::BLOCK_SIZE) / log(2);
	int entries_per_page = (ssd::PAGE_SIZE / ceil(address_bits / 8.0));
	int entry_bytes = (int)ceil(address_bits / 8.0);
	long cache_entries = (long)ssd::CACHE_DFTL_LIMIT * entries_per_page;

	auto wall_start = std::chrono::steady_clock::now();
	ssd::Ssd *device = new ssd::Ssd();
	Replayer r(*device, pages_total, ssd::PAGE_SIZE);
	uint64_t pre_requests = 0;
	for (const auto &reqs : pre) {
		r.run(reqs);
		pre_requests += reqs.size();
	}
	device->reset_statistics();
	r.reset();
	double measured_start = r.now;
	r.run(measured);
	double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start)
	                  .count();
	const ssd::Stats &st = device->get_controller().stats;
	std::string blocks =
	    capture_stdout([&] { ssd::Block_manager::instance()->print_statistics(); });
	long data_blocks = number_after(blocks, "Data blocks:");
	long free_blocks = number_after(blocks, "Free blocks:");
	uint64_t total_blocks = pages_total / ssd::BLOCK_SIZE;
	bool gc_ran = st.numFTLErase > 0 || st.numWLWrite > 0;

	fflush(stdout);
	FILE *out = fdopen(json_fd, "w");
	if (out == nullptr)
		die(std::string("fdopen: ") + strerror(errno));
	auto op = [&](const char *name, const OpCount &c, bool last) {
		fprintf(out, "    \"%s\": {\"requests\": %llu, \"pages\": %llu, \"time_us\": %.6f}%s\n",
		        name, (unsigned long long)c.requests, (unsigned long long)c.pages, c.time_us,
		        last ? "" : ",");
	};
	fprintf(out, "{\n");
	fprintf(out, "  \"tool\": \"flashsim-replay\",\n");
	fprintf(out, "  \"flashsim_commit\": \"%s\",\n", FLASHSIM_COMMIT);
	fprintf(out, "  \"config\": {\"file\": %s, \"ftl_implementation\": %u, \"pages\": %llu, "
	             "\"blocks\": %llu, \"pages_per_block\": %u, \"page_size\": %u, "
	             "\"cache_dftl_limit\": %u, \"address_bits\": %d, \"entry_bytes\": %d, "
	             "\"entries_per_translation_page\": %d, \"cache_entries\": %ld},\n",
	        json_string(conf).c_str(), ssd::FTL_IMPLEMENTATION, (unsigned long long)pages_total,
	        (unsigned long long)total_blocks, ssd::BLOCK_SIZE, ssd::PAGE_SIZE,
	        ssd::CACHE_DFTL_LIMIT, address_bits, entry_bytes, entries_per_page, cache_entries);
	fprintf(out, "  \"replay\": {\"trace\": %s, \"arrivals\": \"closed\", "
	             "\"precondition_requests\": %llu, \"requests\": %llu, \"flushes_skipped\": "
	             "%llu},\n",
	        json_string(trace).c_str(), (unsigned long long)pre_requests,
	        (unsigned long long)(r.read.requests + r.write.requests + r.trim.requests),
	        (unsigned long long)r.flushes);
	fprintf(out, "  \"requests\": {\n");
	op("read", r.read, false);
	op("write", r.write, false);
	op("trim", r.trim, true);
	fprintf(out, "  },\n");
	fprintf(out, "  \"map_cache\": {\"hits\": %ld, \"misses\": %ld, "
	             "\"translation_page_writes\": %ld},\n",
	        st.numCacheHits, st.numCacheFaults, st.numGCWrite);
	fprintf(out, "  \"gc\": {\"ran\": %s, \"erases\": %ld, \"page_copies\": %ld, "
	             "\"data_blocks_counter\": %ld, \"free_blocks\": %ld, \"total_blocks\": %llu},\n",
	        gc_ran ? "true" : "false", st.numFTLErase, st.numWLWrite, data_blocks, free_blocks,
	        (unsigned long long)total_blocks);
	fprintf(out, "  \"time\": {\"device_us\": %.6f},\n", r.now - measured_start);
	fprintf(out, "  \"wall_seconds\": %.6f\n", wall);
	fprintf(out, "}\n");
	fclose(out);
	// FlashSim's destructors are left to process exit (its Ssd destructor unmaps page
	// data it may never have mapped).
	_exit(0);
}
