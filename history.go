package tenure

// AsOf narrows a history to a read point: with AsOfTx, the versions the
// system had recorded by then (a version closed later shows as it was then,
// still open) and the deletions made by then; with AsOfValid, the versions
// whose valid time contains it. Chain links are kept when one of their
// object's versions is. Without times, h is returned unchanged.
func (h History) AsOf(r Read) History {
	if r.AsOfTx == nil && r.AsOfValid == nil {
		return h
	}
	out := History{Key: h.Key, Versions: []Object{}, Chain: []ChainLink{}}
	kept := map[string]bool{}
	for _, v := range h.Versions {
		if r.AsOfTx != nil {
			if r.AsOfTx.Before(v.TxStart) {
				continue
			}
			if v.TxEnd != nil && r.AsOfTx.Before(*v.TxEnd) {
				v = v.Clone()
				v.TxEnd = nil
			}
		}
		if r.AsOfValid != nil && !v.ValidAt(*r.AsOfValid) {
			continue
		}
		out.Versions = append(out.Versions, v)
		kept[v.ObjectID] = true
	}
	for _, c := range h.Chain {
		if kept[c.ObjectID] {
			out.Chain = append(out.Chain, c)
		}
	}
	for _, d := range h.Deletions {
		if r.AsOfTx == nil || !r.AsOfTx.Before(d.DeletedAt) {
			out.Deletions = append(out.Deletions, d)
		}
	}
	return out
}
