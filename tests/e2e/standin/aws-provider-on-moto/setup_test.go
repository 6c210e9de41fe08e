//go:build e2e

package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// Run with the e2e build tag (like the engine tests, so the harness's untagged `go test ./...`
// leaves them to `make e2e`):
//
//	cd tests && GOWORK=off go test -tags e2e ./e2e/standin/aws-provider-on-moto/
//
// The tests drive the stand-in over gRPC, as the engine does, against a real moto server that
// TestMain starts on loopback (and stops). moto comes from MOTO_SERVER, else the pinned venv
// tests/e2e/install-e2e-deps.sh creates in $CACHE_DIR. Without it the tests fail (they never
// skip).

const (
	testRegion  = "us-west-2"
	testAccount = "123456789012" // moto's default account
)

var motoEndpoint string

func TestMain(m *testing.M) {
	// Re-executed as the plugin itself (TestBinary): run main().
	if os.Getenv("STANDIN_AWS_RUN_MAIN") == "1" {
		os.Args = append([]string{"pulumi-resource-aws"}, strings.Fields(os.Getenv("STANDIN_AWS_ARGS"))...)
		main()
		os.Exit(0)
	}
	stop, err := startMoto()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}

// startMoto starts moto_server as the lab does (lab.StartMoto: the pinned venv's, $MOTO_SERVER
// overriding it; the AWS managed policies and the EKS AMI parameters loaded) and sets
// motoEndpoint.
func startMoto() (func(), error) {
	tools, err := lab.FindTools()
	if tools.MotoServer == "" {
		return nil, err // only moto is needed here: the error names what else is missing, too
	}
	dir, err := os.MkdirTemp("", "standin-aws-moto-")
	if err != nil {
		return nil, err
	}
	m, err := lab.StartMoto(context.Background(), tools.MotoServer, dir)
	if err != nil {
		return nil, err
	}
	motoEndpoint = m.URL
	return func() { m.Stop(); os.RemoveAll(dir) }, nil
}

// testSettings is the stand-in's environment for a test: moto, dummy credentials, a state
// directory and an operation log of the test's own.
func testSettings(t *testing.T) settings {
	dir := t.TempDir()
	return settings{
		endpoint: motoEndpoint, accessKey: "testing", secretKey: "testing",
		region: testRegion, stateDir: filepath.Join(dir, "state"), logPath: filepath.Join(dir, "ops.log"),
	}
}

// plugin is one plugin process as the engine sees it: the stand-in served over gRPC on loopback.
// Each `pulumi` command starts a new one; tests do the same with newPlugin on the same settings.
type pluginProc struct {
	pulumirpc.ResourceProviderClient
	env settings
}

func newPlugin(t *testing.T, env settings) *pluginProc {
	t.Helper()
	srv := grpc.NewServer()
	pulumirpc.RegisterResourceProviderServer(srv, newProvider(nil, env))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); srv.Stop() })
	p := &pluginProc{ResourceProviderClient: pulumirpc.NewResourceProviderClient(conn), env: env}
	args, _ := marshal(pmap{"region": sv(testRegion)})
	if _, err := p.Configure(context.Background(), &pulumirpc.ConfigureRequest{Args: args}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return p
}

func urnOf(typ, name string) string {
	return string(resource.NewURN("test", "standin", "karpenter:index:Karpenter", tokens.Type(typ), name))
}

func mustMarshal(t *testing.T, m pmap) *structpb.Struct {
	t.Helper()
	s, err := marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustUnmarshal(t *testing.T, s *structpb.Struct) pmap {
	t.Helper()
	m, err := unmarshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// res is a resource as the engine tracks it.
type res struct {
	typ, name, urn, id string
	inputs, outputs    pmap
}

// check runs Check and fails the test on check failures.
func (p *pluginProc) check(t *testing.T, typ, name string, news, olds pmap) pmap {
	t.Helper()
	in, failures := p.checkFailures(t, typ, name, news, olds)
	if len(failures) > 0 {
		t.Fatalf("Check %s %s failed: %v", typ, name, failures)
	}
	return in
}

func (p *pluginProc) checkFailures(t *testing.T, typ, name string, news, olds pmap) (pmap, []string) {
	t.Helper()
	resp, err := p.Check(context.Background(), &pulumirpc.CheckRequest{
		Urn: urnOf(typ, name), Name: name, Type: typ, News: mustMarshal(t, news), Olds: mustMarshal(t, olds),
		RandomSeed: []byte(name),
	})
	if err != nil {
		t.Fatalf("Check %s %s: %v", typ, name, err)
	}
	var failures []string
	for _, f := range resp.GetFailures() {
		failures = append(failures, f.GetProperty()+": "+f.GetReason())
	}
	return mustUnmarshal(t, resp.GetInputs()), failures
}

// create checks and creates a resource (not a preview) and fails the test on errors.
func (p *pluginProc) create(t *testing.T, typ, name string, news pmap) *res {
	t.Helper()
	r, err := p.tryCreate(t, typ, name, news)
	if err != nil {
		t.Fatalf("Create %s %s: %v", typ, name, err)
	}
	return r
}

func (p *pluginProc) tryCreate(t *testing.T, typ, name string, news pmap) (*res, error) {
	t.Helper()
	in := p.check(t, typ, name, news, nil)
	resp, err := p.Create(context.Background(), &pulumirpc.CreateRequest{
		Urn: urnOf(typ, name), Name: name, Type: typ, Properties: mustMarshal(t, in),
	})
	if err != nil {
		return nil, err
	}
	if resp.GetId() == "" {
		t.Fatalf("Create %s %s returned no id", typ, name)
	}
	return &res{typ: typ, name: name, urn: urnOf(typ, name), id: resp.GetId(), inputs: in, outputs: mustUnmarshal(t, resp.GetProperties())}, nil
}

// previewCreate runs Create with preview=true.
func (p *pluginProc) previewCreate(t *testing.T, typ, name string, in pmap) pmap {
	t.Helper()
	resp, err := p.Create(context.Background(), &pulumirpc.CreateRequest{
		Urn: urnOf(typ, name), Name: name, Type: typ, Properties: mustMarshal(t, in), Preview: true,
	})
	if err != nil {
		t.Fatalf("preview Create %s %s: %v", typ, name, err)
	}
	return mustUnmarshal(t, resp.GetProperties())
}

func (p *pluginProc) diff(t *testing.T, r *res, news pmap) *pulumirpc.DiffResponse {
	t.Helper()
	resp, err := p.Diff(context.Background(), &pulumirpc.DiffRequest{
		Id: r.id, Urn: r.urn, Name: r.name, Type: r.typ,
		Olds: mustMarshal(t, r.outputs), OldInputs: mustMarshal(t, r.inputs), News: mustMarshal(t, news),
	})
	if err != nil {
		t.Fatalf("Diff %s %s: %v", r.typ, r.name, err)
	}
	return resp
}

// update checks the new inputs, expects an in-place update from Diff, applies it and returns
// the updated resource.
func (p *pluginProc) update(t *testing.T, r *res, news pmap) *res {
	t.Helper()
	in := p.check(t, r.typ, r.name, news, r.inputs)
	d := p.diff(t, r, in)
	if d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) > 0 {
		t.Fatalf("Diff %s %s: want an update, got changes=%v replaces=%v", r.typ, r.name, d.GetChanges(), d.GetReplaces())
	}
	resp, err := p.Update(context.Background(), &pulumirpc.UpdateRequest{
		Id: r.id, Urn: r.urn, Name: r.name, Type: r.typ,
		Olds: mustMarshal(t, r.outputs), OldInputs: mustMarshal(t, r.inputs), News: mustMarshal(t, in),
	})
	if err != nil {
		t.Fatalf("Update %s %s: %v", r.typ, r.name, err)
	}
	return &res{typ: r.typ, name: r.name, urn: r.urn, id: r.id, inputs: in, outputs: mustUnmarshal(t, resp.GetProperties())}
}

func (p *pluginProc) previewUpdate(t *testing.T, r *res, in pmap) pmap {
	t.Helper()
	resp, err := p.Update(context.Background(), &pulumirpc.UpdateRequest{
		Id: r.id, Urn: r.urn, Name: r.name, Type: r.typ, Preview: true,
		Olds: mustMarshal(t, r.outputs), OldInputs: mustMarshal(t, r.inputs), News: mustMarshal(t, in),
	})
	if err != nil {
		t.Fatalf("preview Update %s %s: %v", r.typ, r.name, err)
	}
	return mustUnmarshal(t, resp.GetProperties())
}

func (p *pluginProc) read(t *testing.T, r *res) (*pulumirpc.ReadResponse, pmap, pmap) {
	t.Helper()
	resp, err := p.Read(context.Background(), &pulumirpc.ReadRequest{
		Id: r.id, Urn: r.urn, Name: r.name, Type: r.typ,
		Properties: mustMarshal(t, r.outputs), Inputs: mustMarshal(t, r.inputs),
	})
	if err != nil {
		t.Fatalf("Read %s %s: %v", r.typ, r.name, err)
	}
	return resp, mustUnmarshal(t, resp.GetProperties()), mustUnmarshal(t, resp.GetInputs())
}

func (p *pluginProc) tryDelete(r *res) error {
	props, _ := marshal(r.outputs)
	ins, _ := marshal(r.inputs)
	_, err := p.Delete(context.Background(), &pulumirpc.DeleteRequest{
		Id: r.id, Urn: r.urn, Name: r.name, Type: r.typ, Properties: props, OldInputs: ins,
	})
	return err
}

func (p *pluginProc) delete(t *testing.T, r *res) {
	t.Helper()
	if err := p.tryDelete(r); err != nil {
		t.Fatalf("Delete %s %s: %v", r.typ, r.name, err)
	}
}

func (p *pluginProc) invoke(t *testing.T, tok string, args pmap) (pmap, error) {
	t.Helper()
	resp, err := p.Invoke(context.Background(), &pulumirpc.InvokeRequest{Tok: tok, Args: mustMarshal(t, args)})
	if err != nil {
		return nil, err
	}
	return mustUnmarshal(t, resp.GetReturn()), nil
}

// opLines are the operation log's lines, each split into its fields.
func opLines(t *testing.T, env settings) [][]string {
	t.Helper()
	f, err := os.Open(env.logPath)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, strings.Fields(sc.Text()))
	}
	return out
}

// ---- direct moto clients, to check what the stand-in did ----------------------------------

type motoClients struct {
	iam    *iam.Client
	sqs    *sqs.Client
	events *eventbridge.Client
	eks    *eks.Client
	ec2    *ec2Query
	ssm    *jsonRPC
}

func moto() motoClients {
	creds := credentials.NewStaticCredentialsProvider("testing", "testing", "")
	cfg := aws.Config{Region: testRegion, Credentials: creds, BaseEndpoint: aws.String(motoEndpoint)}
	return motoClients{
		iam: iam.NewFromConfig(cfg), sqs: sqs.NewFromConfig(cfg), events: eventbridge.NewFromConfig(cfg), eks: eks.NewFromConfig(cfg),
		ec2: &ec2Query{endpoint: motoEndpoint, region: testRegion, creds: creds, http: http.DefaultClient, signer: v4.NewSigner()},
		ssm: &jsonRPC{endpoint: motoEndpoint, region: testRegion, creds: creds, http: http.DefaultClient, signer: v4.NewSigner(),
			service: "ssm", target: "AmazonSSM", label: "SSM"},
	}
}

// unique makes names unique across tests sharing one moto.
func unique(t *testing.T, s string) string {
	return fmt.Sprintf("%s-%s-%d", s, strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(t.Name(), "")), time.Now().UnixNano()%1e6)
}

func trust(service string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"` + service + `"},"Action":"sts:AssumeRole"}]}`
}

func isUnknown(v resource.PropertyValue) bool { return v.ContainsUnknowns() }
