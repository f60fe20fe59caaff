// One lazy chunk for the pages shown before the console (auth-gate.tsx, ADR 0030).
export { CreateAdminPage } from "./create-admin-page";
export { EnrolTotpPage } from "./enrol-totp-page";
export { SignInPage } from "./sign-in-page";
