package snapshot

import (
	"encoding/json"
	"slices"

	"github.com/theory/jsonpath/spec"
)

// diff lists what changed from before to after: members added, removed
// or modified (objects are compared member by member), elements added at
// the end of an array, and arrays changed otherwise as one modification.
func diff(before, after map[string]any) []Change {
	var out []Change
	diffAt(&out, nil, before, after)
	return out
}

func diffAt(out *[]Change, loc spec.NormalizedPath, before, after any) {
	bm, bObj := before.(map[string]any)
	am, aObj := after.(map[string]any)
	if bObj && aObj {
		keys := sortedKeys(bm)
		for _, k := range sortedKeys(am) {
			if _, ok := bm[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			sub := append(slices.Clip(loc), spec.Name(k))
			bv, inB := bm[k]
			av, inA := am[k]
			switch {
			case !inB:
				*out = append(*out, Change{Path: norm(sub), Kind: Added, After: raw(av)})
			case !inA:
				*out = append(*out, Change{Path: norm(sub), Kind: Removed, Before: raw(bv)})
			default:
				diffAt(out, sub, bv, av)
			}
		}
		return
	}
	bc, ac := canon(before), canon(after)
	if bc == ac {
		return
	}
	ba, bArr := before.([]any)
	aa, aArr := after.([]any)
	if bArr && aArr && len(aa) > len(ba) && canon(ba) == canon(aa[:len(ba)]) {
		for i := len(ba); i < len(aa); i++ {
			*out = append(*out, Change{Path: norm(append(slices.Clip(loc), spec.Index(i))), Kind: Added, After: raw(aa[i])})
		}
		return
	}
	*out = append(*out, Change{Path: norm(loc), Kind: Modified, Before: json.RawMessage(bc), After: json.RawMessage(ac)})
}

// raw is a value's canonical JSON.
func raw(v any) json.RawMessage { return json.RawMessage(canon(v)) }
