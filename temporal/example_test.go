package temporal_test

import (
	"fmt"
	"time"

	"github.com/tenure-dev/tenure/temporal"
)

func ExampleResolver_Resolve() {
	written := time.Date(2023, time.May, 8, 14, 30, 0, 0, time.UTC) // a Monday
	text := "Last Saturday we went to the lake; a couple of weeks ago it rained, and next month we move."
	for _, d := range temporal.New().Resolve(text, written) {
		fmt.Printf("%s = %s\n", d.Expr, temporal.Format(d))
	}
	// Output:
	// Last Saturday = 6 May 2023
	// a couple of weeks ago = week of 24 April 2023
	// next month = June 2023
}

// Plans and deadlines resolve forward from the message, reports of the
// past backward, each from its wording.
func ExampleResolver_Resolve_direction() {
	written := time.Date(2025, time.March, 8, 10, 0, 0, 0, time.UTC) // a Saturday
	r := temporal.New()
	for _, text := range []string{
		"Marco will finish the dashboard by Friday.",
		"On Friday I went to the planetarium.",
		"The pipeline is due Friday, March 14.",
		"We ship in two weeks; 6000 years ago nobody shipped.",
	} {
		for _, d := range r.Resolve(text, written) {
			fmt.Printf("%s = %s\n", d.Expr, temporal.Format(d))
		}
	}
	// Output:
	// Friday = 14 March 2025
	// On Friday = 7 March 2025
	// Friday, March 14 = 14 March 2025
	// in two weeks = week of 17 March 2025
}
