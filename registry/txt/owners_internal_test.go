package txt

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOwnerIndexMergeMatchesMap checks the merge join against the map
// lookup on random, sorted data with duplicates and several types.
func TestOwnerIndexMergeMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	types := []string{"A", "AAAA", "CNAME", ""}
	for round := range 200 {
		type key struct{ name, typ, set string }
		var keys []key
		for range rng.IntN(30) {
			keys = append(keys, key{fmt.Sprintf("n%d", rng.IntN(10)), types[rng.IntN(len(types))], []string{"", "eu", "us"}[rng.IntN(3)]})
		}
		// Provider order: sorted by (name, set) within each type, types
		// interleaved.
		slices.SortStableFunc(keys, func(a, b key) int {
			return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.set, b.set))
		})
		merge, byMap := newOwnerIndex(len(keys)), newOwnerIndex(len(keys))
		st := &zoneState{txts: make([]txtInfo, len(keys)), setIDs: map[int32]string{}}
		for i, k := range keys {
			if k.set != "" {
				st.setIDs[int32(i)] = k.set
			}
			merge.add(k.name, k.typ, int32(i))
			byMap.add(k.name, k.typ, int32(i))
		}
		merge.finish(st)
		byMap.finish(st)
		if len(keys) > 0 {
			require.True(t, merge.sorted, "round %d", round)
		}
		for n := range 11 {
			for _, set := range []string{"", "eu", "us"} {
				name := fmt.Sprintf("n%d", n)
				qm := merge.query(name, set, true)
				qq := byMap.query(name, set, false)
				for _, typ := range types {
					gi, gok := qm.find(typ)
					wi, wok := qq.find(typ)
					require.Equal(t, wok, gok, "round %d %s/%s/%s", round, name, typ, set)
					assert.Equal(t, wi, gi, "round %d %s/%s/%s", round, name, typ, set)
				}
			}
		}
	}
}

func TestOwnerIndexUnsortedFallsBack(t *testing.T) {
	o := newOwnerIndex(2)
	o.add("b", "A", 0)
	o.add("a", "A", 1)
	o.finish(&zoneState{txts: make([]txtInfo, 2)})
	assert.False(t, o.sorted)
	i, ok := o.query("a", "", true).find("A")
	require.True(t, ok)
	assert.Equal(t, int32(1), i)
	_, ok = o.query("c", "", true).find("A")
	assert.False(t, ok)
}
