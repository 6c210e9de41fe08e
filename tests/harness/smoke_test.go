package harness

import (
	"context"
	"os"
	"testing"
)

func TestSmokeFixture(t *testing.T) {
	b, err := os.ReadFile("../testdata/render/default.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRender(b)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Start(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cp.Stop)
	c, err := NewCluster(cp)
	if err != nil {
		t.Fatal(err)
	}
	applied, err := c.Install(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range applied {
		t.Log(a.Resource.Name)
	}
}
