package temporal

import "github.com/tenure-dev/tenure"

// Format renders d's period compactly for display: "6 May 2023" for a day,
// "week of 1 May 2023" for a week (dated by its Monday, whatever day of it
// Date falls on), "May 2023" for a month and "2023" for a year. An unknown
// granularity renders as a day.
func Format(d tenure.ResolvedDate) string {
	switch d.Granularity {
	case Week:
		return "week of " + weekStart(d.Date).Format("2 January 2006")
	case Month:
		return d.Date.Format("January 2006")
	case Year:
		return d.Date.Format("2006")
	}
	return d.Date.Format("2 January 2006")
}
