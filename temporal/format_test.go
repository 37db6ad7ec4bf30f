package temporal_test

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/temporal"
)

func TestFormat(t *testing.T) {
	date := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		name, date, gran, want string
	}{
		{"Day", "2023-05-06", "day", "6 May 2023"},
		{"Week", "2023-05-01", "week", "week of 1 May 2023"},
		{"WeekNotMonday", "2023-05-06", "week", "week of 1 May 2023"},
		{"WeekAcrossYear", "2023-01-01", "week", "week of 26 December 2022"},
		{"Month", "2023-05-01", "month", "May 2023"},
		{"Year", "2023-01-01", "year", "2023"},
		{"UnknownIsDay", "2023-05-06", "", "6 May 2023"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tenure.ResolvedDate{Expr: "x", Date: date(tc.date), Granularity: tc.gran}
			if got := temporal.Format(d); got != tc.want {
				t.Errorf("Format(%s, %q) = %q, want %q", tc.date, tc.gran, got, tc.want)
			}
		})
	}
}
