package web

import (
	"fmt"
	"sort"
	"time"

	"github.com/tenure-dev/tenure"
)

// timeline is a bitemporal picture of a key's versions: valid time
// across, transaction time upwards. Each stored version is a rectangle
// over the valid time it claims and the transaction time it was believed;
// open ends run to the edge.
type timeline struct {
	Width, Height           float64
	Left, Top, PlotW, PlotH float64
	Boxes                   []timelineBox
	XTicks, YTicks          []timelineTick
	ValidLine, TxLine       *float64 // the "as of" read point, when set
	From, To                time.Time
}

type timelineBox struct {
	X, Y, W, H float64
	ObjectID   string
	Version    int
	Status     tenure.Status
	Label      string
	Selected   bool
	Color      string
	Open       bool // still believed (no tx_end)
}

type timelineTick struct {
	Pos   float64
	Label string
}

// palette colors the chain's objects; each has at least 4.5:1 contrast
// against white (text and outlines stay readable).
var palette = []string{"#1f5fa8", "#a23b72", "#2e7d32", "#b35900", "#6a3fa0", "#00796b", "#8d6e00", "#c62828"}

// newTimeline lays out versions; selected is the object shown, asOfTx and
// asOfValid the read point (nil: now).
func newTimeline(versions []tenure.Object, selected string, now time.Time, asOfTx, asOfValid *time.Time) *timeline {
	if len(versions) == 0 {
		return nil
	}
	t := &timeline{Width: 720, Height: 300, Left: 130, Top: 16}
	t.PlotW, t.PlotH = t.Width-t.Left-16, t.Height-t.Top-48
	lo, hi := versions[0].TxStart, now
	for _, v := range versions {
		for _, x := range []time.Time{v.ValidFrom, v.TxStart} {
			if x.Before(lo) {
				lo = x
			}
			if x.After(hi) {
				hi = x
			}
		}
		for _, x := range []*time.Time{v.ValidUntil, v.TxEnd, asOfTx, asOfValid} {
			if x != nil && x.After(hi) {
				hi = *x
			}
			if x != nil && x.Before(lo) {
				lo = *x
			}
		}
	}
	span := hi.Sub(lo)
	if span <= 0 {
		span = time.Hour
	}
	pad := span / 20
	lo, hi = lo.Add(-pad), hi.Add(pad)
	t.From, t.To = lo, hi
	span = hi.Sub(lo)
	x := func(at time.Time) float64 { return t.Left + t.PlotW*float64(at.Sub(lo))/float64(span) }
	y := func(at time.Time) float64 { return t.Top + t.PlotH - t.PlotH*float64(at.Sub(lo))/float64(span) }
	colors := map[string]string{}
	for _, v := range versions {
		if _, ok := colors[v.ObjectID]; !ok {
			colors[v.ObjectID] = palette[len(colors)%len(palette)]
		}
	}
	sorted := append([]tenure.Object(nil), versions...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].TxStart.Before(sorted[j].TxStart) })
	for _, v := range sorted {
		x0, x1 := x(v.ValidFrom), t.Left+t.PlotW
		if v.ValidUntil != nil {
			x1 = x(*v.ValidUntil)
		}
		y1, y0 := y(v.TxStart), t.Top
		open := v.TxEnd == nil
		if !open {
			y0 = y(*v.TxEnd)
		}
		w, h := max(x1-x0, 2), max(y1-y0, 2)
		t.Boxes = append(t.Boxes, timelineBox{X: x0, Y: y0, W: w, H: h, ObjectID: v.ObjectID, Version: v.Version, Status: v.Status,
			Label: fmt.Sprintf("%s v%d (%s): %s", v.ObjectID, v.Version, v.Status, shortValue(v)), Selected: v.ObjectID == selected,
			Color: colors[v.ObjectID], Open: open})
	}
	for i := 0; i <= 4; i++ {
		at := lo.Add(span * time.Duration(i) / 4)
		label := at.UTC().Format("2006-01-02 15:04")
		t.XTicks = append(t.XTicks, timelineTick{Pos: x(at), Label: label})
		t.YTicks = append(t.YTicks, timelineTick{Pos: y(at), Label: label})
	}
	if asOfValid != nil {
		v := x(*asOfValid)
		t.ValidLine = &v
	}
	if asOfTx != nil {
		v := y(*asOfTx)
		t.TxLine = &v
	}
	return t
}

// shortValue is an object's value or content, cut to 60 characters.
func shortValue(o tenure.Object) string {
	return cut(valueText(o), 60)
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
