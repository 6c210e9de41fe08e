package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/pulumi/pulumi/sdk/v3/go/common/diag"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil/rpcerror"
	pprovider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// provider implements the resource provider protocol (pulumirpc.ResourceProviderServer).
type provider struct {
	pulumirpc.UnimplementedResourceProviderServer

	env  settings
	ops  *opLog
	eks  *eksStore
	mu   sync.Mutex
	host *pprovider.HostClient
	aws  *awsClients // set by Configure
	acct string      // the caller's account, read once from STS
}

// awsClients are the service clients, all pointed at moto.
type awsClients struct {
	region string
	iam    *iam.Client
	sqs    *sqs.Client
	events *eventbridge.Client
	sts    *sts.Client
	ec2    *ec2Query
}

func newProvider(host *pprovider.HostClient, env settings) *provider {
	return &provider{env: env, host: host, ops: &opLog{path: env.logPath}, eks: newEKSStore(env.stateDir)}
}

func (p *provider) clients() (*awsClients, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.aws == nil {
		return nil, errors.New("the aws provider is not configured yet (Configure was not called)")
	}
	return p.aws, nil
}

func (p *provider) configure(region string) {
	creds := credentials.NewStaticCredentialsProvider(p.env.accessKey, p.env.secretKey, p.env.sessionToken)
	cfg := aws.Config{
		Region:           region,
		Credentials:      creds,
		BaseEndpoint:     aws.String(p.env.endpoint),
		RetryMaxAttempts: 3,
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.aws = &awsClients{
		region: region,
		iam:    iam.NewFromConfig(cfg),
		sqs:    sqs.NewFromConfig(cfg),
		events: eventbridge.NewFromConfig(cfg),
		sts:    sts.NewFromConfig(cfg),
		ec2:    &ec2Query{endpoint: p.env.endpoint, region: region, creds: creds, http: http.DefaultClient, signer: v4.NewSigner()},
	}
	p.acct = ""
}

// call is one resource operation: what the type's ops need besides their arguments.
type call struct {
	p      *provider
	urn    resource.URN
	typ    *rtype
	inputs pmap // the resource's inputs (for Delete: the old inputs)
}

func (c *call) aws() *awsClients {
	cl, err := c.p.clients()
	if err != nil {
		panic(err) // ops run only after the server checked that the provider is configured
	}
	return cl
}

func (c *call) region() string { return c.aws().region }

func (c *call) partition() string {
	p, _, _ := partitionOf(c.region())
	return p
}

func (c *call) account(ctx context.Context) string {
	c.p.mu.Lock()
	acct := c.p.acct
	c.p.mu.Unlock()
	if acct != "" {
		return acct
	}
	out, err := c.aws().sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return "123456789012"
	}
	c.p.mu.Lock()
	c.p.acct = aws.ToString(out.Account)
	c.p.mu.Unlock()
	return aws.ToString(out.Account)
}

// inMemory tells the engine's output (and stderr) that the object lives in the stand-in's
// record, not in moto.
func (c *call) inMemory(ctx context.Context, verb string) {
	msg := fmt.Sprintf("%s %s %s recorded in memory: %s (%s)", verb, c.typ.token, c.urn.Name(), c.typ.inMemory, standIn)
	logf("%s", msg)
	if c.p.host != nil {
		_ = c.p.host.Log(ctx, diag.Info, c.urn, msg)
	}
}

var unmarshalOpts = plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true, SkipNulls: true}

func unmarshal(s *structpb.Struct) (pmap, error) {
	if s == nil {
		return pmap{}, nil
	}
	return plugin.UnmarshalProperties(s, unmarshalOpts)
}

func marshal(m pmap) (*structpb.Struct, error) {
	return plugin.MarshalProperties(m, plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true})
}

func (p *provider) typeOf(urn string) (*rtype, error) {
	tok := string(resource.URN(urn).Type())
	t, ok := types[tok]
	if !ok {
		return nil, fmt.Errorf("unknown resource type %q: the %s serves only %s", tok, standIn, strings.Join(sortedKeys(types), ", "))
	}
	return t, nil
}

// ---- plugin and configuration -------------------------------------------------------------

func (p *provider) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: pluginInfoVersion}, nil
}

func (p *provider) GetSchema(_ context.Context, req *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	s, err := schemaJSON()
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetSchemaResponse{Schema: s}, nil
}

func (p *provider) Attach(_ context.Context, req *pulumirpc.PluginAttach) (*emptypb.Empty, error) {
	host, err := pprovider.NewHostClient(req.GetAddress())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.host = host
	p.mu.Unlock()
	return &emptypb.Empty{}, nil
}

func (p *provider) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// CheckConfig accepts pulumi-aws's configuration; the stand-in uses `region` (else AWS_REGION)
// and refuses the keys that would point it anywhere but moto.
func (p *provider) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	var failures []*pulumirpc.CheckFailure
	if r := news["region"]; !r.IsNull() && !unknown(r) && !plain(r).IsString() {
		failures = append(failures, failure("region", "region must be a string"))
	}
	if !has(news, "region") && p.env.region == "" {
		failures = append(failures, failure("region", "missing region: set the aws:region configuration or AWS_REGION (%s)", standIn))
	}
	for _, k := range []string{"endpoints", "profile", "sharedCredentialsFiles", "assumeRole", "assumeRoleWithWebIdentity"} {
		if has(news, k) {
			failures = append(failures, failure(k, "aws:%s is not supported by the %s: it talks only to moto at AWS_ENDPOINT_URL", k, standIn))
		}
	}
	ins, err := marshal(news)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CheckResponse{Inputs: ins, Failures: failures}, nil
}

func (p *provider) DiffConfig(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	olds, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	if len(olds) == 0 {
		if olds, err = unmarshal(req.GetOlds()); err != nil {
			return nil, err
		}
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	resp := &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}
	for _, k := range unionKeys(olds, news) {
		if k == "version" {
			continue
		}
		if !olds[resource.PropertyKey(k)].DeepEquals(news[resource.PropertyKey(k)]) || unknown(news[resource.PropertyKey(k)]) {
			resp.Changes = pulumirpc.DiffResponse_DIFF_SOME
			resp.Diffs = append(resp.Diffs, k)
		}
	}
	return resp, nil
}

func (p *provider) Configure(_ context.Context, req *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	region := p.env.region
	if v, ok := req.GetVariables()["aws:config:region"]; ok && v != "" {
		region = v
	}
	if args, err := unmarshal(req.GetArgs()); err == nil && str(args, "region") != "" {
		region = str(args, "region")
	}
	if region == "" {
		return nil, fmt.Errorf("missing region: set the aws:region configuration or AWS_REGION (%s)", standIn)
	}
	p.configure(region)
	logf("configured: region %s, moto at %s", region, p.env.endpoint)
	return &pulumirpc.ConfigureResponse{
		AcceptSecrets:                   false, // the engine strips secrets before they reach the stand-in
		AcceptResources:                 false,
		SupportsPreview:                 true,
		SupportsAutonamingConfiguration: true,
	}, nil
}

// ---- Check and Diff -----------------------------------------------------------------------

func (p *provider) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	olds, err := unmarshal(req.GetOlds())
	if err != nil {
		return nil, err
	}
	delete(news, defaultsKey)
	failures := validate(t, news)

	defaults := []resource.PropertyValue{}
	if t.autoname > 0 && !has(news, "name") && !has(news, "namePrefix") {
		name := req.GetName()
		if name == "" {
			name = resource.URN(req.GetUrn()).Name()
		}
		switch {
		case has(olds, "name") && defaulted(olds, "name"):
			// Keep the name generated before, as pulumi-aws does (the old inputs list it in
			// __defaults).
			news["name"] = olds["name"]
			defaults = append(defaults, sv("name"))
		case req.GetAutonaming() != nil && req.GetAutonaming().GetMode() == pulumirpc.CheckRequest_AutonamingOptions_DISABLE:
			// No name: terraform generates "terraform-<unique>" when the object is created.
		case req.GetAutonaming() != nil:
			news["name"] = sv(req.GetAutonaming().GetProposedName())
			defaults = append(defaults, sv("name"))
		default:
			// pulumi-aws's AutoName: the resource name, "-", 7 random hex digits, seeded by the
			// engine so previews and updates agree.
			n, err := resource.NewUniqueName(req.GetRandomSeed(), name+"-", 7, t.autoname, nil)
			if err != nil {
				failures = append(failures, failure("name", "%v", err))
			} else {
				news["name"] = sv(n)
				defaults = append(defaults, sv("name"))
			}
		}
	}
	news[defaultsKey] = resource.NewArrayProperty(defaults)
	ins, err := marshal(news)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CheckResponse{Inputs: ins, Failures: failures}, nil
}

// defaultsKey lists the inputs the provider filled in (pulumi-terraform-bridge's __defaults).
const defaultsKey = "__defaults"

func defaulted(in pmap, k string) bool {
	v := in[defaultsKey]
	if !v.IsArray() {
		return false
	}
	for _, e := range v.ArrayValue() {
		if e.IsString() && e.StringValue() == k {
			return true
		}
	}
	return false
}

// validate checks inputs as terraform's schema does: known keys, required keys, value kinds,
// then the type's own ValidateFuncs. Unknown values (a preview) pass; they are checked again
// when known.
func validate(t *rtype, in pmap) []*pulumirpc.CheckFailure {
	var out []*pulumirpc.CheckFailure
	for _, key := range sortedKeys(in.Mappable()) {
		k := resource.PropertyKey(key)
		spec, ok := t.inputs[key]
		v := plain(in[k])
		switch {
		case !ok:
			out = append(out, failure(key, "%s has no input %q (pulumi-aws 6.83.2)", t.token, key))
			continue
		case spec.unsupported && !v.IsNull():
			out = append(out, failure(key, "%s input %q is not supported by the %s", t.token, key, standIn))
			continue
		}
		if v.IsNull() || unknown(v) {
			continue
		}
		if want := kindOK(spec.kind, v); want != "" {
			out = append(out, failure(key, "%q must be %s, got %s", key, want, describe(v)))
		}
	}
	for _, key := range sortedKeys(t.inputs) {
		if t.inputs[key].required && !has(in, key) {
			out = append(out, failure(key, "Missing required argument: the %q property is required by %s", key, t.token))
		}
	}
	if has(in, "name") && has(in, "namePrefix") {
		out = append(out, failure("namePrefix", `"namePrefix": conflicts with name`))
	}
	if t.ops.check != nil {
		out = append(out, t.ops.check(in)...)
	}
	return out
}

// kindOK is "" when v has the kind, else what was expected.
func kindOK(k kind, v resource.PropertyValue) string {
	switch k {
	case kString:
		if !v.IsString() {
			return "a string"
		}
	case kInt:
		if !v.IsNumber() || v.NumberValue() != float64(int(v.NumberValue())) {
			return "an integer"
		}
	case kBool:
		if !v.IsBool() {
			return "a boolean"
		}
	case kStringMap:
		if !v.IsObject() {
			return "a map of strings"
		}
		for _, e := range v.ObjectValue() {
			if e = plain(e); !e.IsString() && !unknown(e) {
				return "a map of strings"
			}
		}
	case kStringList:
		if !v.IsArray() {
			return "a list of strings"
		}
		for _, e := range v.ArrayValue() {
			if e = plain(e); !e.IsString() && !unknown(e) {
				return "a list of strings"
			}
		}
	case kObjectList:
		if !v.IsArray() {
			return "a list of objects"
		}
	case kObject:
		if !v.IsObject() {
			return "an object"
		}
	}
	return ""
}

func unionKeys(a, b pmap) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[string(k)] = true
	}
	for k := range b {
		keys[string(k)] = true
	}
	return sortedKeys(keys)
}

// equalInput compares an old and a new input value the way terraform plans: JSON documents
// as values, an absent value equal to the schema default.
func equalInput(spec prop, o, n resource.PropertyValue) bool {
	o, n = plain(o), plain(n)
	if unknown(n) {
		return false
	}
	if o.IsNull() && !spec.def.IsNull() {
		o = spec.def
	}
	if n.IsNull() && !spec.def.IsNull() {
		n = spec.def
	}
	if spec.json && o.IsString() && n.IsString() {
		return jsonEquivalent(o.StringValue(), n.StringValue())
	}
	return o.DeepEquals(n)
}

// Diff compares the old inputs with the new ones. A change to a create-only property (types.go)
// replaces the resource; when the resource's name was given explicitly (not auto-named), the
// replacement deletes the old object first, as pulumi-terraform-bridge's
// nameRequiresDeleteBeforeReplace (pkg/tfbridge/schema.go) decides: the new object could not
// be created under the same name while the old one exists.
func (p *provider) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	olds, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	if req.GetOldInputs() == nil {
		if olds, err = unmarshal(req.GetOlds()); err != nil {
			return nil, err
		}
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	resp := &pulumirpc.DiffResponse{
		Changes: pulumirpc.DiffResponse_DIFF_NONE, DetailedDiff: map[string]*pulumirpc.PropertyDiff{}, HasDetailedDiff: true,
	}
	for _, key := range unionKeys(olds, news) {
		spec, ok := t.inputs[key]
		if !ok { // __defaults, or an output (old engines send outputs as olds)
			continue
		}
		k := resource.PropertyKey(key)
		if spec.computed && !has(news, key) && !unknown(news[k]) {
			continue // an Optional+Computed input left unset keeps what the provider computed
		}
		if equalInput(spec, olds[k], news[k]) {
			continue
		}
		kind := pulumirpc.PropertyDiff_UPDATE
		switch {
		case !has(olds, key):
			kind = pulumirpc.PropertyDiff_ADD
		case !has(news, key):
			kind = pulumirpc.PropertyDiff_DELETE
		}
		if spec.forceNew {
			kind++ // the *_REPLACE kind follows each kind
			resp.Replaces = append(resp.Replaces, key)
		}
		resp.Diffs = append(resp.Diffs, key)
		resp.DetailedDiff[key] = &pulumirpc.PropertyDiff{Kind: kind, InputDiff: true}
	}
	if len(resp.Diffs) > 0 {
		resp.Changes = pulumirpc.DiffResponse_DIFF_SOME
	}
	if len(resp.Replaces) > 0 && t.autoname > 0 && has(news, "name") && !defaulted(news, "name") {
		resp.DeleteBeforeReplace = true
	}
	sort.Strings(resp.Replaces)
	return resp, nil
}

// ---- Create, Read, Update, Delete ---------------------------------------------------------

// previewCreate is what a real provider answers for a create in a preview: the inputs, the
// schema defaults of unset inputs, and unknowns for everything the cloud computes.
func previewCreate(t *rtype, in pmap) pmap {
	outs := pmap{}
	for k, v := range in {
		if k != defaultsKey {
			outs[k] = v
		}
	}
	for key, spec := range t.inputs {
		if spec.unsupported || has(in, key) {
			continue
		}
		switch {
		case !spec.def.IsNull():
			outs[resource.PropertyKey(key)] = spec.def
		case spec.computed:
			outs[resource.PropertyKey(key)] = unknownValue()
		}
	}
	for _, o := range t.outputs {
		outs[resource.PropertyKey(o)] = unknownValue()
	}
	outs["id"] = unknownValue()
	if t.tags {
		outs["tagsAll"] = tagsAllOf(in)
	}
	return outs
}

func tagsAllOf(in pmap) resource.PropertyValue {
	if v, ok := in["tags"]; ok && !plain(v).IsNull() {
		return v
	}
	return resource.NewObjectProperty(pmap{})
}

// previewUpdate: the old outputs with the new inputs laid over them; computed values the update
// does not change (arn, id, url, ...) stay known.
func previewUpdate(t *rtype, state, in pmap) pmap {
	outs := state.Copy()
	for key, spec := range t.inputs {
		k := resource.PropertyKey(key)
		switch {
		case spec.unsupported:
		case has(in, key):
			if spec.json && plain(in[k]).IsString() && plain(state[k]).IsString() &&
				jsonEquivalent(plain(in[k]).StringValue(), plain(state[k]).StringValue()) {
				continue
			}
			outs[k] = in[k]
		case !spec.def.IsNull():
			outs[k] = spec.def
		case spec.computed:
			// terraform keeps the prior state of an Optional+Computed attribute left unset
		default:
			delete(outs, k)
		}
	}
	if t.tags {
		outs["tagsAll"] = tagsAllOf(in)
	}
	return outs
}

// withComputed fills the Optional+Computed inputs a program left unset from the state (the
// generated targetId, say), so a read finds the object.
func withComputed(t *rtype, in, state pmap) pmap {
	in = in.Copy()
	for key, spec := range t.inputs {
		k := resource.PropertyKey(key)
		if spec.computed && !has(in, key) && has(state, key) {
			in[k] = state[k]
		}
	}
	return in
}

// ready fails an operation that needs moto before Configure.
func (p *provider) ready() error {
	_, err := p.clients()
	return err
}

func (p *provider) Create(ctx context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	in, err := unmarshal(req.GetProperties())
	if err != nil {
		return nil, err
	}
	if req.GetPreview() {
		outs, err := marshal(previewCreate(t, in))
		return &pulumirpc.CreateResponse{Properties: outs}, err
	}
	if err := p.ready(); err != nil {
		return nil, err
	}
	urn := resource.URN(req.GetUrn())
	c := &call{p: p, urn: urn, typ: t, inputs: in}
	id, err := t.ops.create(ctx, c, in)
	if err != nil {
		logf("Create %s %s failed: %v", t.token, urn.Name(), err)
		if id != "" {
			return nil, initFailed(id, pmap{"id": sv(id)}, err)
		}
		return nil, err
	}
	outs, err := t.ops.read(ctx, c, id, c.inputs)
	if err == nil && outs == nil {
		err = fmt.Errorf("%s %s (%s) was not found right after it was created", t.token, urn.Name(), id)
	}
	if err != nil {
		return nil, initFailed(id, pmap{"id": sv(id)}, err)
	}
	outs["id"] = sv(id)
	p.ops.write("Create", t.token, urn.Name(), id)
	props, err := marshal(outs)
	return &pulumirpc.CreateResponse{Id: id, Properties: props}, err
}

// initFailed tells the engine the object exists although the operation failed, so it is
// recorded (and deleted on destroy) instead of leaking in moto.
func initFailed(id string, outs pmap, cause error) error {
	props, err := marshal(outs)
	if err != nil {
		return cause
	}
	return rpcerror.WithDetails(rpcerror.New(codes.Unknown, cause.Error()),
		&pulumirpc.ErrorResourceInitFailed{Id: id, Properties: props, Reasons: []string{cause.Error()}})
}

func (p *provider) Read(ctx context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	if err := p.ready(); err != nil {
		return nil, err
	}
	state, err := unmarshal(req.GetProperties())
	if err != nil {
		return nil, err
	}
	in, err := unmarshal(req.GetInputs())
	if err != nil {
		return nil, err
	}
	urn := resource.URN(req.GetUrn())
	id := req.GetId()
	readIn := withComputed(t, in, state)
	if len(in) == 0 {
		readIn = state // an import or a `get`: only the state (or nothing) is known
	}
	c := &call{p: p, urn: urn, typ: t, inputs: readIn}
	outs, err := t.ops.read(ctx, c, id, readIn)
	if err != nil {
		return nil, err
	}
	p.ops.write("Read", t.token, urn.Name(), id)
	if outs == nil {
		return &pulumirpc.ReadResponse{}, nil // gone: the engine drops it from the state
	}
	outs["id"] = sv(id)
	// The refreshed inputs: the old inputs, each replaced by what moto now holds for it, so a
	// change made outside Pulumi shows as a diff on the next preview.
	newIn := pmap{}
	if len(in) == 0 {
		for key := range t.inputs {
			if v, ok := outs[resource.PropertyKey(key)]; ok && !t.inputs[key].computed {
				newIn[resource.PropertyKey(key)] = v
			}
		}
	} else {
		newIn = in.Copy()
		for k := range in {
			if _, isInput := t.inputs[string(k)]; isInput {
				if v, ok := outs[k]; ok {
					newIn[k] = v
				}
			}
		}
	}
	props, err := marshal(outs)
	if err != nil {
		return nil, err
	}
	inputs, err := marshal(newIn)
	return &pulumirpc.ReadResponse{Id: id, Properties: props, Inputs: inputs}, err
}

func (p *provider) Update(ctx context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	state, err := unmarshal(req.GetOlds())
	if err != nil {
		return nil, err
	}
	newIn, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	oldIn, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	if req.GetOldInputs() == nil {
		oldIn = state
	}
	if req.GetPreview() {
		outs, err := marshal(previewUpdate(t, state, newIn))
		return &pulumirpc.UpdateResponse{Properties: outs}, err
	}
	if err := p.ready(); err != nil {
		return nil, err
	}
	if t.ops.update == nil {
		return nil, fmt.Errorf("%s has no update: every input change replaces it", t.token)
	}
	urn := resource.URN(req.GetUrn())
	id := req.GetId()
	c := &call{p: p, urn: urn, typ: t, inputs: newIn}
	if err := t.ops.update(ctx, c, id, state, oldIn, newIn); err != nil {
		logf("Update %s %s failed: %v", t.token, urn.Name(), err)
		return nil, err
	}
	readIn := withComputed(t, newIn, state)
	outs, err := t.ops.read(ctx, c, id, readIn)
	if err == nil && outs == nil {
		err = fmt.Errorf("%s %s (%s) was not found after it was updated", t.token, urn.Name(), id)
	}
	if err != nil {
		return nil, err
	}
	outs["id"] = sv(id)
	p.ops.write("Update", t.token, urn.Name(), id)
	props, err := marshal(outs)
	return &pulumirpc.UpdateResponse{Properties: props}, err
}

func (p *provider) Delete(ctx context.Context, req *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	if err := p.ready(); err != nil {
		return nil, err
	}
	state, err := unmarshal(req.GetProperties())
	if err != nil {
		return nil, err
	}
	oldIn, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	urn := resource.URN(req.GetUrn())
	c := &call{p: p, urn: urn, typ: t, inputs: oldIn}
	if err := t.ops.delete(ctx, c, req.GetId(), state); err != nil {
		logf("Delete %s %s failed: %v", t.token, urn.Name(), err)
		return nil, err
	}
	p.ops.write("Delete", t.token, urn.Name(), req.GetId())
	return &emptypb.Empty{}, nil
}

// ---- Invoke -------------------------------------------------------------------------------

func (p *provider) Invoke(ctx context.Context, req *pulumirpc.InvokeRequest) (*pulumirpc.InvokeResponse, error) {
	fn, ok := invokes[req.GetTok()]
	if !ok {
		return nil, fmt.Errorf("unknown function %q: the %s serves only %s", req.GetTok(), standIn, strings.Join(sortedKeys(invokes), ", "))
	}
	args, err := unmarshal(req.GetArgs())
	if err != nil {
		return nil, err
	}
	out, err := fn(ctx, p, args)
	if err != nil {
		logf("Invoke %s failed: %v", req.GetTok(), err)
		return nil, err
	}
	p.ops.write("Invoke", req.GetTok(), "", "")
	ret, err := marshal(out)
	return &pulumirpc.InvokeResponse{Return: ret}, err
}
