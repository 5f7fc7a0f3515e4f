// End-to-end suites start every service as a process and play whole matches.
jest.setTimeout(300_000);
