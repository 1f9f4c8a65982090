FROM node:22@sha256:2fa6c977460b56d4d8278947ab56faeb312bc4cc6c4cf78920c6de27812f51c5
# want: literal-secret
ARG NPM_TOKEN=npm_ucSmEHgaKwVJ7faC9qEwjky40UVsWmflzdE1
# want: literal-secret
ENV SERVICE_API_KEY="ZZGeoZDMENcKHVmDGAkJiG8XnBE3NnYJ" LOG_LEVEL=info
RUN npm config set //registry.example.org/:_authToken "$NPM_TOKEN"
