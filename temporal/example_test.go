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
