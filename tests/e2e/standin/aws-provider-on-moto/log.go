package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/smithy-go"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// logf writes one line to stderr (the engine keeps plugin stderr in its logs), always naming
// the plugin as the stand-in.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pulumi-resource-aws (%s): %s\n", standIn, fmt.Sprintf(format, args...))
}

// logTimeFormat is RFC 3339 with nanoseconds, always 9 digits, so lines sort as text too.
const logTimeFormat = "2006-01-02T15:04:05.000000000Z07:00"

// opLog appends one line per operation to $STANDIN_LOG:
//
//	<RFC3339Nano> aws <op> <type> <urn-name> <id> <parents> <keys>
//
// op is Create, Update, Delete or Read (a resource, after it succeeded against moto or the
// record; previews are not logged: they call nothing) or Invoke (type is the function token,
// urn-name and id are "-"). parents is the URN's type chain above the resource
// (karpenter:index:Karpenter for the component's children; "-" for a resource of the program itself
// and for an invoke). keys, comma-separated ("-": none), are the inputs a Create was given, those
// an Update changed (as Diff plans them) and the arguments an Invoke was given: the lab turns each
// line into the AWS calls terraform-provider-aws makes for that operation, which depend on them
// (tests/e2e/lab/deployer.go). Each line is one O_APPEND write, so lines from concurrent calls and
// from several plugin processes never interleave.
type opLog struct {
	path string
	mu   sync.Mutex
}

func (l *opLog) write(op, typ string, urn resource.URN, id string, keys []string) {
	if l == nil || l.path == "" {
		return
	}
	field := func(s string) string {
		if s == "" {
			return "-"
		}
		return strings.Join(strings.Fields(s), "_")
	}
	var name, parents string
	if urn != "" {
		name = urn.Name()
		if chain := strings.Split(string(urn.QualifiedType()), "$"); len(chain) > 1 {
			parents = strings.Join(chain[:len(chain)-1], "$")
		}
	}
	line := fmt.Sprintf("%s aws %s %s %s %s %s %s\n", time.Now().UTC().Format(logTimeFormat), op, field(typ), field(name), field(id),
		field(parents), field(strings.Join(keys, ",")))
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		logf("cannot write the operation log %s: %v", l.path, err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		logf("cannot write the operation log %s: %v", l.path, err)
	}
}

// givenKeys are the inputs with a value (not null, not empty), sorted.
func givenKeys(in pmap) []string {
	var out []string
	for k, v := range in {
		if k != defaultsKey && !isZero(v) {
			out = append(out, string(k))
		}
	}
	sort.Strings(out)
	return out
}

// errorCode is the AWS error code of err (smithy.APIError, or an EC2 Query error), "" if none.
func errorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	var ee *ec2Error
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ""
}

// isNotFound reports the "no such object" answers of the services the stand-in calls.
func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	switch errorCode(err) {
	case "NoSuchEntity", "ResourceNotFoundException", "QueueDoesNotExist",
		"AWS.SimpleQueueService.NonExistentQueue", "NonExistentQueue":
		return true
	}
	return false
}

func failure(prop, format string, args ...any) *pulumirpc.CheckFailure {
	return &pulumirpc.CheckFailure{Property: prop, Reason: fmt.Sprintf(format, args...)}
}

func strOr(m pmap, k, def string) string {
	if has(m, k) {
		return str(m, k)
	}
	return def
}

func intOr(m pmap, k string, def int) int {
	if v, ok := integer(m, k); ok {
		return v
	}
	return def
}

func boolOr(m pmap, k string, def bool) bool {
	if v, ok := boolean(m, k); ok {
		return v
	}
	return def
}

// uniqueIDSuffixLength and prefixedUniqueID are terraform-plugin-sdk's helper/id: a timestamp
// to 1/10000 s and an 8-hex-digit counter, 26 characters.
const uniqueIDSuffixLength = 26

var (
	idMu      sync.Mutex
	idCounter uint32
)

func prefixedUniqueID(prefix string) string {
	idMu.Lock()
	defer idMu.Unlock()
	idCounter++
	ts := strings.Replace(time.Now().UTC().Format("20060102150405.0000"), ".", "", 1)
	return fmt.Sprintf("%s%s%08x", prefix, ts, idCounter)
}

var uniqueSuffixRE = regexp.MustCompile(`^\d{18}[0-9a-f]{8}$`)

// namePrefixFromName is terraform's create.NamePrefixFromName: the prefix of a name made by
// prefixedUniqueID, else "".
func namePrefixFromName(name string) string {
	i := len(name) - uniqueIDSuffixLength
	if i <= 0 || !uniqueSuffixRE.MatchString(name[i:]) {
		return ""
	}
	return name[:i]
}
