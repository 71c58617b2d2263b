; ModuleID = 'examples/llvm/intrinsics.c'
source_filename = "examples/llvm/intrinsics.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) uwtable
define dso_local void @ops(ptr nocapture noundef writeonly %0, ptr nocapture noundef readonly %1, ptr nocapture noundef readonly %2) local_unnamed_addr #0 {
  %4 = load i64, ptr %1, align 8, !tbaa !5
  %5 = load i64, ptr %2, align 8, !tbaa !5
  %6 = getelementptr inbounds i8, ptr %1, i64 8
  %7 = load i64, ptr %6, align 8, !tbaa !5
  %8 = getelementptr inbounds i8, ptr %2, i64 8
  %9 = load i64, ptr %8, align 8, !tbaa !5
  %10 = getelementptr inbounds i8, ptr %1, i64 16
  %11 = load i64, ptr %10, align 8, !tbaa !5
  %12 = getelementptr inbounds i8, ptr %2, i64 16
  %13 = load i64, ptr %12, align 8, !tbaa !5
  %14 = getelementptr inbounds i8, ptr %1, i64 24
  %15 = load i64, ptr %14, align 8
  %16 = getelementptr inbounds i8, ptr %2, i64 24
  %17 = load i64, ptr %16, align 8
  %18 = tail call i64 @llvm.umin.i64(i64 %11, i64 %13)
  %19 = icmp slt i64 %7, %9
  %20 = select i1 %19, i64 %15, i64 %17
  %21 = tail call i64 @llvm.fshl.i64(i64 %7, i64 %5, i64 55)
  %22 = tail call i64 @llvm.fshl.i64(i64 %4, i64 %17, i64 7)
  %23 = tail call i64 @llvm.fshl.i64(i64 %15, i64 %15, i64 13)
  %24 = tail call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %11, i64 %13)
  %25 = extractvalue { i64, i1 } %24, 1
  %26 = extractvalue { i64, i1 } %24, 0
  %27 = tail call { i64, i1 } @llvm.usub.with.overflow.i64(i64 %7, i64 %9)
  %28 = extractvalue { i64, i1 } %27, 1
  %29 = extractvalue { i64, i1 } %27, 0
  %30 = tail call { i64, i1 } @llvm.uadd.with.overflow.i64(i64 %4, i64 %5)
  %31 = extractvalue { i64, i1 } %30, 1
  %32 = extractvalue { i64, i1 } %30, 0
  %33 = ashr i64 %7, 17
  %34 = zext i64 %4 to i128
  %35 = zext i64 %5 to i128
  %36 = mul nuw i128 %35, %34
  %37 = zext i64 %15 to i128
  %38 = shl nuw i128 %37, 64
  %39 = zext i64 %17 to i128
  %40 = or disjoint i128 %38, %39
  %41 = urem i128 %40, 170141183460469231731687303715884105727
  %42 = zext i1 %31 to i64
  %43 = add i64 %32, %42
  store i64 %43, ptr %0, align 8, !tbaa !5
  %44 = zext i1 %28 to i64
  %45 = xor i64 %29, %44
  %46 = getelementptr inbounds i8, ptr %0, i64 8
  store i64 %45, ptr %46, align 8, !tbaa !5
  %47 = zext i1 %25 to i64
  %48 = add i64 %26, %47
  %49 = getelementptr inbounds i8, ptr %0, i64 16
  store i64 %48, ptr %49, align 8, !tbaa !5
  %50 = xor i64 %23, %21
  %51 = xor i64 %50, %22
  %52 = getelementptr inbounds i8, ptr %0, i64 24
  store i64 %51, ptr %52, align 8, !tbaa !5
  %53 = add i64 %20, %18
  %54 = getelementptr inbounds i8, ptr %0, i64 32
  store i64 %53, ptr %54, align 8, !tbaa !5
  %55 = getelementptr inbounds i8, ptr %0, i64 40
  store i64 %33, ptr %55, align 8, !tbaa !5
  %56 = lshr i128 %36, 64
  %57 = trunc nuw i128 %56 to i64
  %58 = add i64 %7, %57
  %59 = ashr i64 %13, 3
  %60 = xor i64 %58, %59
  %61 = getelementptr inbounds i8, ptr %0, i64 48
  store i64 %60, ptr %61, align 8, !tbaa !5
  %62 = trunc i128 %41 to i64
  %63 = getelementptr inbounds i8, ptr %0, i64 56
  store i64 %62, ptr %63, align 8, !tbaa !5
  %64 = lshr i128 %41, 64
  %65 = trunc nuw nsw i128 %64 to i64
  %66 = getelementptr inbounds i8, ptr %0, i64 64
  store i64 %65, ptr %66, align 8, !tbaa !5
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare { i64, i1 } @llvm.uadd.with.overflow.i64(i64, i64) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare { i64, i1 } @llvm.usub.with.overflow.i64(i64, i64) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare { i64, i1 } @llvm.umul.with.overflow.i64(i64, i64) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.fshl.i64(i64, i64, i64) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #2

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"long", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
