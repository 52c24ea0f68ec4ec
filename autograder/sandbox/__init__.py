"""Run untrusted submissions: a zygote forks one isolated process per submission (`zygote`, `isolation`,
`limits`, `seccomp`), the student side runs cells and answers calls (`runtime`), the trusted side drives it
(`zygote_handle`, `submission_process`, `request_builders`, `replies`; `sandboxed_student` is the graders'
`student`), and only plain data crosses between them (`wire`)."""
