package plan

import "github.com/zonesync/zonesync/endpoint"

// Prefetching. With tens of thousands of rows, the endpoints, the hash table
// and the rows do not fit in the CPU caches, and a planner that handles one
// record at a time waits for one cache miss after another. The functions in
// this file read a little of the memory that a batch of records will need,
// in tight loops whose loads do not depend on each other, so that the CPU
// fetches it in parallel; the work that follows then finds it in cache.
// They compute nothing the planner uses: the sums only keep the loads from
// being optimised away. BenchmarkCalculateSteady and BenchmarkCalculateChurn
// measure what they save (docs/benchmarks.md).

// touchEndpoints reads a little of every endpoint of a batch, its name and
// its first target in tight loops whose loads do not depend on each other,
// so that the CPU fetches their memory in parallel; the work that follows
// then finds it in cache.
func (pl *planner) touchEndpoints(eps []*endpoint.Endpoint) {
	var sink uint64
	for _, e := range eps {
		if e != nil {
			sink += uint64(len(e.DNSName)+len(e.Targets)) + uint64(len(e.Labels))
		}
	}
	for _, e := range eps {
		if e == nil {
			continue
		}
		if len(e.DNSName) > 0 {
			sink += uint64(e.DNSName[0])
		}
		if len(e.Targets) > 0 {
			sink += uint64(len(e.Targets[0]))
		}
	}
	for _, e := range eps {
		if e != nil && len(e.Targets) > 0 && len(e.Targets[0]) > 0 {
			sink += uint64(e.Targets[0][0])
		}
	}
	pl.sink += sink
}

// touchTable reads the hash table entries of a prepared batch and the
// names of the rows they point to.
func (pl *planner) touchTable(keys []pendingKey) {
	var sink uint64
	for j := range keys {
		if keys[j].t >= 0 {
			sink += pl.table[keys[j].h&pl.mask]
		}
	}
	for j := range keys {
		if keys[j].t < 0 {
			continue
		}
		entry := pl.table[keys[j].h&pl.mask]
		if entry != 0 && entry&^0xffffffff == keys[j].h>>32<<32 {
			if name := pl.rows[int(uint32(entry))-1].name; name != "" {
				sink += uint64(name[0])
			}
		}
	}
	pl.sink += sink
}

// touchRows reads the targets of the records in the inline slots of rows
// [from, to) in tight loops, so that the CPU fetches them in parallel before
// planRows compares them (see touchEndpoints).
func (pl *planner) touchRows(from, to int) {
	var sink uint64
	n := min(len(pl.types), inlineSlots)
	for level := range 3 {
		for r := from; r < to; r++ {
			for t := range n {
				s := pl.rows[r].slots[t]
				if s.cur != 0 {
					sink += touchTargets(pl.p.Current[s.cur-1], level)
				}
				if s.cand != 0 {
					sink += touchTargets(pl.p.Desired[s.cand-1], level)
				}
			}
		}
	}
	pl.sink += sink
}

// touchTargets reads one level of e's memory: 0 the endpoint, 1 the target
// list, 2 the first target's bytes.
func touchTargets(e *endpoint.Endpoint, level int) uint64 {
	switch {
	case level == 0:
		return uint64(len(e.Targets))
	case len(e.Targets) == 0:
		return 0
	case level == 1:
		return uint64(len(e.Targets[0]))
	case len(e.Targets[0]) > 0:
		return uint64(e.Targets[0][0])
	}
	return 0
}
