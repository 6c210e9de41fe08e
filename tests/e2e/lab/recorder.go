package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"k8s.io/client-go/kubernetes"
)

// AWSCall is one request the Karpenter controller sent to AWS (moto), as the recorder saw it.
type AWSCall struct {
	Time    time.Time
	Service string // the SigV4 signing name: ec2, iam, sqs, eks, pricing, ssm, sts...
	Region  string // the region the call is signed for
	Action  string // the API operation: CreateFleet, ReceiveMessage, DescribeCluster...
	// Params are the request's parameters: the form of a query-protocol call (EC2, IAM), the
	// JSON body of a JSON-protocol call (SQS, pricing, SSM), the path parameters of a REST call
	// (EKS), flattened to strings.
	Params url.Values
	JSON   map[string]any // the decoded body of a JSON-protocol call
	Status int            // moto's HTTP status
	DryRun bool
	// ResourceTags are the tags (and, for an instance profile, the ARN with its path) of the
	// existing resources the call acts on, read from moto just before it was forwarded: what IAM
	// evaluates aws:ResourceTag conditions against. Keyed by the resource's ARN.
	ResourceTags map[string]map[string]string
	// LaunchTemplates are the launch templates a CreateFleet or RunInstances used, as they were.
	LaunchTemplates []LaunchTemplateData
	// AccessKey signed the call ("" for an unsigned one: AssumeRoleWithWebIdentity); Session is the
	// assumed-role session it was issued to by an assumption through the recorder — a web
	// identity's or Pod Identity's ("": the key is not one of those).
	AccessKey, Session string
	// Trust is the verdict on an assumption: STS's on an AssumeRoleWithWebIdentity (identity.go),
	// EKS Auth's on an AssumeRoleForPodIdentity (podidentity.go).
	Trust *TrustVerdict `json:",omitempty"`
	// Launched are the instances a CreateFleet or RunInstances launched.
	Launched []string `json:",omitempty"`
	// Received are the messages an SQS ReceiveMessage returned.
	Received []SQSMessage `json:",omitempty"`
}

// ListParam is a list parameter of a query-protocol call, which the AWS SDKs flatten to
// name.1, name.2, ...: the instances one TerminateInstances ends (Karpenter batches the nodes it
// deletes at once into one call), the resources one CreateTags tags.
func (c AWSCall) ListParam(name string) []string {
	var out []string
	for i := 1; c.Params.Has(fmt.Sprintf("%s.%d", name, i)); i++ {
		out = append(out, c.Params.Get(fmt.Sprintf("%s.%d", name, i)))
	}
	return out
}

// SQSMessage is a message as ReceiveMessage returns it.
type SQSMessage struct {
	MessageId, ReceiptHandle, Body string
}

// LaunchTemplateData is what IAM looks at in a launch template a launch uses.
type LaunchTemplateData struct {
	ID, Name         string
	Tags             map[string]string
	SecurityGroupIDs []string
	ImageID          string
	InstanceProfile  string // its name; RoleArn is the role inside it
	RoleArn          string
	TagSpecs         map[string]map[string]string // resource type -> tags the template adds at launch
	HopLimit         int32                        // metadata options' HttpPutResponseHopLimit (0: unset)
	// InstanceTypes are the instance types a fleet's overrides launch from it (none: any).
	InstanceTypes []string
}

// LaunchTemplatesOf are the launch templates, as they were, that the recorded launch of the
// instance (of that type) could have launched it from: a fleet's configs whose overrides name its
// type (moto does not tag a fleet's instances with their template).
func LaunchTemplatesOf(calls []AWSCall, instance, instanceType string) []LaunchTemplateData {
	var out []LaunchTemplateData
	for _, c := range calls {
		if !slices.Contains(c.Launched, instance) {
			continue
		}
		for _, lt := range c.LaunchTemplates {
			if len(lt.InstanceTypes) == 0 || slices.Contains(lt.InstanceTypes, instanceType) {
				out = append(out, lt)
			}
		}
	}
	return out
}

// IAMAction is the call's IAM action name (service prefix and operation): ec2:CreateFleet.
func (c AWSCall) IAMAction() string {
	prefix := c.Service
	if prefix == "monitoring" {
		prefix = "cloudwatch"
	}
	return prefix + ":" + c.Action
}

// AWSRecorder stands between the controller and moto (the controller's AWS_ENDPOINT_URL): it
// forwards every request and records the call, so the test can say which AWS calls Karpenter
// made, with which credentials, and check each against the component's controller policies. It
// does STS's checks of a web identity assumption, which moto skips (identity.go), and answers a
// refused one as STS does; and it answers as each cluster's Pod Identity agent (podidentity.go),
// and EC2's catalog calls from what moto answered before (catalogcache.go). It also makes up for two gaps of moto 5.2.5 that would otherwise send
// Karpenter down paths real AWS never takes (see fixups.go); each fix-up is recorded (FixUps).
type AWSRecorder struct {
	URL      string // http://127.0.0.1:<port>
	mu       sync.Mutex
	log      []AWSCall
	fixups   []string
	sessions map[string]string // access key -> assumed-role session ARN it was issued for
	// eksRecord is the aws stand-in's EKS record (pod identity associations, add-ons).
	eksRecord string
	srv       *http.Server
	moto      *motoClient
	identity  *identityChecks
}

type callKey struct{}

// startAWSRecorder listens on a free loopback port and forwards to moto at target; fix-ups and
// STS's checks talk to moto with cfg, and read the token issuer's keys from the API server of cs.
// It also answers as each cluster's Pod Identity agent (podidentity.go), from the aws stand-in's
// EKS record eksRecord.
func startAWSRecorder(target string, cfg aws.Config, cs *kubernetes.Clientset, eksRecord string) (*AWSRecorder, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &AWSRecorder{URL: "http://" + l.Addr().String(), moto: newMotoClient(cfg), sessions: map[string]string{}, eksRecord: eksRecord,
		identity: &identityChecks{cs: cs, iam: iam.NewFromConfig(cfg)}}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.Transport = &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 32}
	proxy.ModifyResponse = func(resp *http.Response) error {
		c, _ := resp.Request.Context().Value(callKey{}).(*AWSCall)
		if c == nil || resp.StatusCode != http.StatusOK {
			return nil
		}
		switch {
		case c.Action == "AssumeRoleWithWebIdentity":
			return r.noteSession(resp)
		case c.Service == "sqs" && c.Action == "ReceiveMessage":
			return noteReceived(resp, c)
		}
		if err := r.fixUp(resp, c); err != nil {
			return err
		}
		return keepCatalogAnswer(resp, catalogKey(c))
	}
	r.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, podIdentityAgentPrefix) {
			r.podIdentityAgent(w, req)
			return
		}
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		c := parseCall(req, body)
		r.mu.Lock()
		c.Session = r.sessions[c.AccessKey]
		r.mu.Unlock()
		record := func(status int) {
			c.Time, c.Status = time.Now(), status
			r.mu.Lock()
			r.log = append(r.log, *c)
			r.mu.Unlock()
		}
		if c.Action == "AssumeRoleWithWebIdentity" {
			// Unsigned (the token is the credential): STS's checks before moto's credentials.
			c.Service = "sts"
			v := r.identity.webIdentity(req.Context(), c.Params)
			c.Trust = &v
			if v.Code != "" {
				record(writeSTSError(w, v))
				return
			}
		}
		r.preflight(req.Context(), c)
		if answerFromCatalogCache(w, catalogKey(c)) {
			record(http.StatusOK)
			return
		}
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		proxy.ServeHTTP(rec, req.WithContext(context.WithValue(req.Context(), callKey{}, c)))
		record(rec.status)
	})}
	go func() { _ = r.srv.Serve(l) }()
	return r, nil
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// Flush keeps long polls (SQS ReceiveMessage) streaming.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

var signingScope = regexp.MustCompile(`Credential=([^/]+)/[0-9]+/([^/]+)/([^/]+)/aws4_request`)

// eksRoutes are the EKS REST operations by method and path.
var eksRoutes = []struct {
	method string
	path   *regexp.Regexp
	action string
	params []string
}{
	{http.MethodGet, regexp.MustCompile(`^/clusters/([^/]+)$`), "DescribeCluster", []string{"name"}},
}

// parseCall reads which call a request is.
func parseCall(req *http.Request, body []byte) *AWSCall {
	c := &AWSCall{Params: url.Values{}}
	if m := signingScope.FindStringSubmatch(req.Header.Get("Authorization")); m != nil {
		c.AccessKey, c.Region, c.Service = m[1], m[2], m[3]
	}
	switch target := req.Header.Get("X-Amz-Target"); {
	case target != "": // JSON protocols: AmazonSQS.ReceiveMessage, AWSPriceListService.GetProducts
		c.Action = target[strings.LastIndex(target, ".")+1:]
		_ = json.Unmarshal(body, &c.JSON)
		for k, v := range c.JSON {
			if s, ok := v.(string); ok {
				c.Params.Set(k, s)
			}
		}
	case strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded"):
		c.Params, _ = url.ParseQuery(string(body))
		c.Action = c.Params.Get("Action")
	default: // REST
		for _, route := range eksRoutes {
			if m := route.path.FindStringSubmatch(req.URL.Path); m != nil && req.Method == route.method && c.Service == "eks" {
				c.Action = route.action
				for i, p := range route.params {
					c.Params.Set(p, m[i+1])
				}
			}
		}
		if c.Action == "" {
			c.Action = req.Method + " " + req.URL.Path // unknown: the IAM check names it
		}
	}
	c.DryRun = c.Params.Get("DryRun") == "true"
	return c
}

// noteSession reads the credentials moto's STS issued for a web identity assumption STS's checks
// allowed: calls signed with them act as that session.
func (r *AWSRecorder) noteSession(resp *http.Response) error {
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var out struct {
		Result struct {
			Credentials     struct{ AccessKeyId string }
			AssumedRoleUser struct{ Arn string }
		} `xml:"AssumeRoleWithWebIdentityResult"`
	}
	if err := xml.Unmarshal(body, &out); err != nil {
		return fmt.Errorf("moto's AssumeRoleWithWebIdentity answer: %w", err)
	}
	r.mu.Lock()
	r.sessions[out.Result.Credentials.AccessKeyId] = out.Result.AssumedRoleUser.Arn
	r.mu.Unlock()
	return nil
}

// noteReceived keeps the messages a ReceiveMessage returned (JSON protocol) in the call.
func noteReceived(resp *http.Response, c *AWSCall) error {
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var out struct{ Messages []SQSMessage }
	if err := json.Unmarshal(body, &out); err != nil {
		return fmt.Errorf("moto's ReceiveMessage answer: %w", err)
	}
	c.Received = out.Messages
	return nil
}

// writeSTSError answers as STS's query protocol answers a refused call; it returns the status.
func writeSTSError(w http.ResponseWriter, v TrustVerdict) int {
	status := http.StatusForbidden
	if v.Code != "AccessDenied" {
		status = http.StatusBadRequest
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	var msg bytes.Buffer
	_ = xml.EscapeText(&msg, []byte(v.Message))
	fmt.Fprintf(w, `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>lab-sts</RequestId></ErrorResponse>`,
		v.Code, msg.String())
	return status
}

// Calls are the calls recorded so far, in the order they completed.
func (r *AWSRecorder) Calls() []AWSCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]AWSCall(nil), r.log...)
}

// FixUps are the fix-ups made so far.
func (r *AWSRecorder) FixUps() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.fixups...)
}

// Close stops the recorder.
func (r *AWSRecorder) Close() {
	if r != nil && r.srv != nil {
		_ = r.srv.Close()
	}
}
