// Package sign reaches BuildKit through progress.
package sign

import "github.com/kitsmith/kitsmith/pkg/progress"

// Events is where signing reports.
type Events chan<- progress.Event
