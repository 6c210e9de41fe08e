package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Render reports the result fields the component decodes, by their provider names; a field
// tagged fallbackFor is reported with the field it stands in for.
func TestResultFields(t *testing.T) {
	var region struct {
		Region string `pulumi:"region"`
		Name   string `pulumi:"name" fallbackFor:"region"`
		ID     string `pulumi:"id,optional"`
		Other  string // untagged: not decoded
	}
	assert.Equal(t, []string{"region|name", "id"}, resultFields(&region))
	assert.Nil(t, resultFields(struct{}{}))
	assert.Nil(t, resultFields(nil))
}
