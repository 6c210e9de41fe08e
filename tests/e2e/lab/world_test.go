package lab

import (
	"os"
	"path/filepath"
	"testing"
)

// A 500 from moto says nothing in the client's error; the scenario prints moto's traceback.
func TestMotoErrorsAreItsTracebacks(t *testing.T) {
	log := filepath.Join(t.TempDir(), "moto.log")
	text := `127.0.0.1 - - [26/Nov/2026 23:55:21] "POST / HTTP/1.1" 200 -
Traceback (most recent call last):
  File "moto/ec2/models/tags.py", line 93, in describe_tags
    for key, value in tags.items():
RuntimeError: dictionary changed size during iteration
127.0.0.1 - - [26/Nov/2026 23:55:21] "POST / HTTP/1.1" 500 -
`
	if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `Traceback (most recent call last):
  File "moto/ec2/models/tags.py", line 93, in describe_tags
    for key, value in tags.items():
RuntimeError: dictionary changed size during iteration
`
	if got := (&Moto{Log: log}).Errors(); got != want {
		t.Errorf("Errors() =\n%s\nwant\n%s", got, want)
	}
	if got := (&Moto{Log: filepath.Join(t.TempDir(), "none")}).Errors(); got != "" {
		t.Errorf("Errors() of a missing log = %q, want none", got)
	}
}
