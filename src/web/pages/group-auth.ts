// One lazy chunk for the pages shown before the console (src/web/features/auth/auth-gate.tsx, ADR 0030).
export { CreateAdminPage } from "@/features/auth/create-admin-page";
export { EnrolTotpPage } from "@/features/auth/enrol-totp-page";
export { SignInPage } from "@/features/auth/sign-in-page";
