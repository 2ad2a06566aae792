GO ?= go

.PHONY: build test soak race lint bench docs findings docs-images docs-report-image ci

build:
	$(GO) build ./...

# The quick suite: within a minute on two cores. Tests that start servers
# (redis-server, nginx, chromium) run when .ci/run's scripts set them up.
test:
	$(GO) test ./...

# The long variants as well: every round of the conformance tests, every
# documented run with its chart, the 10⁶-bin report page (.ci/run sets it).
soak:
	RATELIMIT_LAB_SOAK=1 $(GO) test ./...

race:
	$(GO) test -race ./...

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

ci:
	bash .ci/run

# Regenerate docs/findings.md from the lab's own runs (internal/findings).
findings:
	$(GO) test ./internal/findings -run 'TestKeyTracesUpToDate|TestFindingsUpToDate|TestReadmeGatewayTable' -update

# Regenerate the charts in docs/images with the CLI itself.
DOCS_TMP ?= /tmp/ratelimit-lab-docs
docs-images:
	rm -rf $(DOCS_TMP) && mkdir -p $(DOCS_TMP) docs/images
	$(GO) build -o $(DOCS_TMP)/ratelimit-lab ./cmd/ratelimit-lab
	$(DOCS_TMP)/ratelimit-lab run boundary-burst --quiet --from 0.8s --to 1.3s --out $(DOCS_TMP)/boundary-burst >/dev/null
	cp $(DOCS_TMP)/boundary-burst/chart.png docs/images/boundary-burst.png
	for s in cold-start adversarial clock-rollback slow-downstream redis-race priority-mix; do \
		$(DOCS_TMP)/ratelimit-lab run $$s --quiet --out $(DOCS_TMP)/$$s >/dev/null && \
		cp $(DOCS_TMP)/$$s/chart.png docs/images/$$s.png || exit 1; \
	done
	$(DOCS_TMP)/ratelimit-lab run retry-storm --quiet --algo none --algo concurrency:limit=16 --algo gradient2 --out $(DOCS_TMP)/retry-storm >/dev/null
	cp $(DOCS_TMP)/retry-storm/chart.png docs/images/retry-storm.png
	$(DOCS_TMP)/ratelimit-lab tune poisson --quiet --out $(DOCS_TMP)/poisson-tune >/dev/null
	cp $(DOCS_TMP)/poisson-tune/tune.png docs/images/poisson-tune.png
	$(DOCS_TMP)/ratelimit-lab run key-spray --quiet --out $(DOCS_TMP)/per-key >/dev/null
	cp $(DOCS_TMP)/per-key/chart.png docs/images/per-key.png
	$(MAKE) docs-report-image

# docs/images/report.png: report.html of slow-downstream in headless
# Chromium (Debian's chromium; .ci/chromium.sh installs it).
CHROMIUM ?= chromium
docs-report-image:
	mkdir -p $(DOCS_TMP) && $(GO) build -o $(DOCS_TMP)/ratelimit-lab ./cmd/ratelimit-lab
	$(DOCS_TMP)/ratelimit-lab run slow-downstream --quiet --chart none --out $(DOCS_TMP)/report-page >/dev/null
	rm -rf $(DOCS_TMP)/chromium-profile
	$(CHROMIUM) --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir=$(DOCS_TMP)/chromium-profile --hide-scrollbars --window-size=1280,1480 \
		--virtual-time-budget=5000 --screenshot=$(CURDIR)/docs/images/report.png \
		file://$(DOCS_TMP)/report-page/report.html 2>/dev/null

# Everything generated in docs/: the findings and the charts.
docs: findings docs-images
