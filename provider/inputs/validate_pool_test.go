package inputs

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCronSchedules(t *testing.T) {
	for _, ok := range []string{"@daily", "0 9 * * 1-5", "*/15 * * * *", "0 0 1 jan,jul *", "30 22 * * sun", "0 9 * * mon-fri"} {
		assert.NoError(t, checkCron(ok), ok)
	}
	for _, bad := range []string{"@sometimes", "0 9 * *", "60 * * * *", "0 9 * * 8", "0 9 5-1 * *", "*/0 * * * *", "0 9 * foo *"} {
		assert.Error(t, checkCron(bad), bad)
	}
}
