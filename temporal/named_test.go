package temporal_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/temporal"
)

func TestNamed(t *testing.T) {
	may30 := time.Date(2023, 5, 30, 23, 40, 0, 0, time.UTC)
	date := func(expr string, y int, m time.Month, d int, gran string) tenure.ResolvedDate {
		return tenure.ResolvedDate{Expr: expr, Date: time.Date(y, m, d, 0, 0, 0, 0, time.UTC), Granularity: gran}
	}
	for _, c := range []struct {
		name string
		text string
		ref  time.Time
		want []tenure.ResolvedDate
	}{
		{"OK/Month", "What did I buy in March?", may30, []tenure.ResolvedDate{date("in March", 2023, time.March, 1, temporal.Month)}},
		{"OK/ThisMonth", "Which concerts did I go to in May?", may30, []tenure.ResolvedDate{date("in May", 2023, time.May, 1, temporal.Month)}},
		{"OK/LastYear", "What did I cook during early June?", may30, []tenure.ResolvedDate{date("during early June", 2022, time.June, 1, temporal.Month)}},
		{"OK/FirstWeek", "Where did I eat in the first week of March?", may30,
			[]tenure.ResolvedDate{date("first week of March", 2023, time.March, 1, temporal.Week)}},
		{"OK/LastWeek", "the last week of April", may30, []tenure.ResolvedDate{date("last week of April", 2023, time.April, 24, temporal.Week)}},
		// 1 April 2023 was a Saturday; 29 April the last one.
		{"OK/Weekend", "the second weekend of April", may30, []tenure.ResolvedDate{
			date("second weekend of April", 2023, time.April, 8, temporal.Day), date("second weekend of April", 2023, time.April, 9, temporal.Day)}},
		{"OK/LastWeekend", "the last weekend in April", may30, []tenure.ResolvedDate{
			date("last weekend in April", 2023, time.April, 29, temporal.Day), date("last weekend in April", 2023, time.April, 30, temporal.Day)}},
		{"OK/WeekWithYear", "the third week of Jan 2021", may30, []tenure.ResolvedDate{date("third week of Jan 2021", 2021, time.January, 15, temporal.Week)}},
		{"OK/Abbreviation", "since Sept. I have run twice", may30, []tenure.ResolvedDate{date("since Sept.", 2022, time.September, 1, temporal.Month)}},
		{"LeftToOthers/DayFollows", "in March 14 we left", may30, nil},
		{"LeftToOthers/YearFollows", "in March, 2023", may30, nil},
		{"NotAMonth/LowerMay", "so that in may be true", may30, nil},
		{"NotAMonth/NoPreposition", "March on, soldiers", may30, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, temporal.Named(c.text, c.ref)); diff != "" {
				t.Errorf("Named(%q) (-want +got):\n%s", c.text, diff)
			}
		})
	}
}
