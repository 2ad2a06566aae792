GO ?= go

.PHONY: build test race lint bench docs findings docs-images ci

build:
	$(GO) build ./...

test:
	$(GO) test ./...

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
	$(GO) test ./internal/findings -run 'TestFindingsUpToDate|TestReadmeGatewayTable' -update

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
	$(DOCS_TMP)/ratelimit-lab tune poisson --quiet --out $(DOCS_TMP)/poisson-tune >/dev/null
	cp $(DOCS_TMP)/poisson-tune/tune.png docs/images/poisson-tune.png

# Everything generated in docs/: the findings and the charts.
docs: findings docs-images
